import type { TargetedSubmitEvent } from 'preact'
import { useEffect, useRef, useState } from 'preact/hooks'
import { CONSOLE_SESSION_PATH, SESSION_HOURS } from '../contract/console-constants.js'
import { call, type Problem } from './api.js'
import { Notice, ProblemAlert, problemOf } from './ui.js'

/**
 * Sign-in: the API key is sent once to be exchanged for a session cookie the page cannot read, then
 * cleared from the field. The browser stores neither.
 */
export function SignIn(props: {
  problem?: Problem | undefined
  message?: string | undefined
  onSignedIn: (answer: unknown) => Promise<void>
}) {
  const [problem, setProblem] = useState<Problem | undefined>(props.problem)
  const [busy, setBusy] = useState(false)
  const field = useRef<HTMLInputElement>(null)
  useEffect(() => {
    document.title = 'Sign in · rwa console'
    field.current?.focus()
  }, [])
  const submit = async (event: TargetedSubmitEvent<HTMLFormElement>) => {
    event.preventDefault()
    const input = field.current
    if (!input) return
    const apiKey = input.value.trim()
    setBusy(true)
    setProblem(undefined)
    try {
      const answer = await call('POST', CONSOLE_SESSION_PATH, { body: { api_key: apiKey } })
      input.value = ''
      await props.onSignedIn(answer.body)
    } catch (error) {
      setProblem(problemOf(error))
    } finally {
      setBusy(false)
    }
  }
  return (
    <main id="main" class="sign-in">
      <div class="sign-in-card">
        <p class="brand">rwa console</p>
        <h1>Sign in</h1>
        <p class="lead">
          Sign in with an API key. It is exchanged for a session that lasts {SESSION_HOURS} hours at most and
          sees exactly what the key may see and do; this browser keeps only the session's cookie, never the
          key.
        </p>
        {props.message ? <Notice>{props.message}</Notice> : null}
        <ProblemAlert problem={problem} title="Not signed in" />
        <form onSubmit={submit}>
          <div class="field">
            <label for="api-key">API key</label>
            <input
              ref={field}
              id="api-key"
              name="api_key"
              type="password"
              autocomplete="off"
              spellcheck={false}
              required
              placeholder="rwa_live_…"
            />
          </div>
          <button type="submit" class="primary" disabled={busy}>
            {busy ? 'Signing in…' : 'Sign in'}
          </button>
        </form>
        <p class="hint">
          No key at hand? <code>rwa sandbox --demo</code> prints an admin key;{' '}
          <code>rwa keys create --role auditor</code> makes a read-only one.
        </p>
      </div>
    </main>
  )
}
