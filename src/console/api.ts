import { CSRF_HEADER } from '../contract/console-constants.js'

/*
 * The console calls the same JSON API as every client, authenticated by its session cookie (sent by the
 * browser, unreadable here) and, for writes, the session's CSRF token, held in this module's memory
 * only: nothing is written to any browser storage (docs/console.md, "Security model").
 */

/** A refusal as the API answers it (RFC 9457 problem details with `reason` and `context`). */
export interface Problem {
  status: number
  code: string
  reason?: string
  title?: string
  detail: string
  context?: Record<string, unknown>
  errors?: Array<{ path: string; message: string }>
  request_id?: string
}

export class ApiProblem extends Error {
  constructor(readonly problem: Problem) {
    super(problem.detail)
    this.name = 'ApiProblem'
  }
}

let csrfToken: string | undefined
const signedOutListeners = new Set<(problem: Problem) => void>()

/** Remembers the session's CSRF token (in memory) for the writes that follow; undefined forgets it. */
export function setCsrfToken(token: string | undefined): void {
  csrfToken = token
}

/** Called when the API says the session (or its key) no longer works: the page signs out. */
export function onSignedOut(listener: (problem: Problem) => void): () => void {
  signedOutListeners.add(listener)
  return () => signedOutListeners.delete(listener)
}

export type Query = Record<string, string | number | boolean | null | undefined>

/** `path?query` with the empty values left out. */
export function withQuery(path: string, query: Query = {}): string {
  const params = new URLSearchParams()
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined && value !== null && value !== '') params.set(name, String(value))
  }
  const text = params.toString()
  return text === '' ? path : `${path}?${text}`
}

/** The answer of one call: its status and body (a 202 pending approval is an answer too). */
export interface Answer<T> {
  status: number
  body: T
}

/**
 * One call of the API. A refusal throws ApiProblem; a 401 also tells the page the session is over
 * (signed out elsewhere, expired, or its key revoked).
 */
export async function call<T = unknown>(
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  path: string,
  options: { query?: Query; body?: unknown } = {},
): Promise<Answer<T>> {
  const headers: Record<string, string> = { Accept: 'application/json' }
  if (options.body !== undefined) headers['Content-Type'] = 'application/json'
  if (method !== 'GET' && csrfToken) headers[CSRF_HEADER] = csrfToken
  let res: Response
  try {
    res = await fetch(withQuery(path, options.query), {
      method,
      headers,
      credentials: 'same-origin',
      body: options.body === undefined ? null : JSON.stringify(options.body),
    })
  } catch {
    throw new ApiProblem({
      status: 0,
      code: 'unreachable',
      detail: 'The server cannot be reached: is it still running?',
    })
  }
  const text = await res.text()
  let body: unknown = null
  try {
    body = text === '' ? null : JSON.parse(text)
  } catch {
    body = null
  }
  if (!res.ok) {
    const problem: Problem =
      body && typeof body === 'object' && 'detail' in body
        ? (body as Problem)
        : { status: res.status, code: 'unexpected', detail: `The server answered ${res.status}` }
    if (res.status === 401) for (const listener of signedOutListeners) listener(problem)
    throw new ApiProblem(problem)
  }
  return { status: res.status, body: body as T }
}

export const get = async <T>(path: string, query?: Query): Promise<T> =>
  (await call<T>('GET', path, { query })).body
