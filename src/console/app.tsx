import { useEffect, useState } from 'preact/hooks'
import { CONSOLE_PAGES, CONSOLE_SESSION_PATH } from '../contract/console-constants.js'
import { call, get, onSignedOut, type Problem, setCsrfToken } from './api.js'
import { PAGES } from './pages/index.js'
import { href, Link, useLocation } from './router.js'
import { SessionContext, type SessionInfo } from './session.js'
import { SignIn } from './sign-in.js'
import { Page, ProblemAlert, problemOf } from './ui.js'

type State =
  | { kind: 'loading' }
  | { kind: 'signed-out'; problem?: Problem; message?: string }
  | { kind: 'signed-in'; session: SessionInfo }

interface SessionAnswer {
  session_id: string
  key_id: string
  org_id: string
  roles: string[]
  expires_at: string
  csrf_token: string
}

/** The session's answer and its key, as the pages read them; the CSRF token kept in memory. */
async function sessionInfo(answer: SessionAnswer, self?: Promise<SessionInfo['self']>): Promise<SessionInfo> {
  setCsrfToken(answer.csrf_token)
  return {
    self: await (self ?? get<SessionInfo['self']>('/console/billing/keys/self')),
    session_id: answer.session_id,
    key_id: answer.key_id,
    org_id: answer.org_id,
    roles: answer.roles,
    expires_at: answer.expires_at,
  }
}

/** A refusal worth showing on the sign-in page: no cookie at all is the ordinary first visit. */
const shown = (problem: Problem): Problem | undefined =>
  problem.reason === 'session_ended' && /No console session/.test(problem.detail) ? undefined : problem

/** The server said the request carried no session cookie: there is nothing to ask it about. */
const noCookie = document.documentElement.dataset.session === 'none'

export function App() {
  const [state, setState] = useState<State>(noCookie ? { kind: 'signed-out' } : { kind: 'loading' })

  useEffect(() => {
    const stop = onSignedOut((problem) => {
      setCsrfToken(undefined)
      // While the first probe runs, its own answer decides what the page says.
      setState((state) =>
        state.kind === 'loading' ? state : { kind: 'signed-out', problem: shown(problem) },
      )
    })
    if (noCookie) return stop
    // A reload keeps nothing but the cookie: ask the server whose session it is, and read its key at
    // the same time, so the first page is drawn one round trip after the script runs.
    const self = get<SessionInfo['self']>('/console/billing/keys/self')
    self.catch(() => {})
    get<SessionAnswer>(CONSOLE_SESSION_PATH)
      .then((answer) => sessionInfo(answer, self))
      .then(
        (session) => setState({ kind: 'signed-in', session }),
        (error) => setState({ kind: 'signed-out', problem: shown(problemOf(error)) }),
      )
    return stop
  }, [])

  if (state.kind === 'loading') return <p class="loading">Loading the rwa console…</p>
  if (state.kind === 'signed-out') {
    return (
      <SignIn
        problem={state.problem}
        message={state.message}
        onSignedIn={async (answer) =>
          setState({ kind: 'signed-in', session: await sessionInfo(answer as SessionAnswer) })
        }
      />
    )
  }
  const signOut = async () => {
    try {
      await call('DELETE', CONSOLE_SESSION_PATH)
    } catch {
      // Ended already (expired, revoked): signed out all the same.
    }
    setCsrfToken(undefined)
    setState({ kind: 'signed-out', message: 'Signed out. The session has ended on the server.' })
  }
  return (
    <SessionContext.Provider value={state.session}>
      <Shell session={state.session} onSignOut={signOut} />
    </SessionContext.Provider>
  )
}

function Shell(props: { session: SessionInfo; onSignOut: () => void }) {
  const location = useLocation()
  const { session } = props
  const page = PAGES[location.page]
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <Link to={href('')} class="brand">
          rwa console
        </Link>
        <p class="who">
          <span>
            Organization <strong>{session.org_id}</strong>
          </span>
          <span>
            Key <strong>{session.self.name}</strong> <code class="id">{session.key_id}</code>
          </span>
          <span>Roles {session.roles.join(', ')}</span>
        </p>
        <button type="button" class="sign-out" onClick={props.onSignOut}>
          Sign out
        </button>
      </header>
      <div class="frame">
        <nav class="side" aria-label="Console">
          <ul>
            {CONSOLE_PAGES.map((p) => (
              <li key={p.slug}>
                <Link to={href(p.slug)} aria-current={p.slug === location.page ? 'page' : undefined}>
                  {p.title}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <main id="main">
          {page ? (
            <page.component key={location.url} id={location.id} query={location.query} />
          ) : (
            <Page title="Page not found">
              <ProblemAlert
                title="Not found"
                problem={{
                  status: 404,
                  code: 'not_found',
                  detail: `The console has no page ${location.url}.`,
                }}
              />
            </Page>
          )}
        </main>
      </div>
    </>
  )
}
