import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import type { Context } from 'hono'
import { CSRF_HEADER } from '../../../src/contract/console.js'
import type { AppContext } from '../context.js'
import { ApiError } from '../../platform/errors.js'
import { SESSION_COOKIE } from '../../platform/http/session-cookie.js'
import { findSessionBySecretHash } from './queries.js'

/*
 * Console sessions (docs/console.md, "Security model"). Signing in exchanges an API key for a random
 * secret kept only in an HttpOnly, SameSite=Strict cookie; the database keeps its hash and the key it
 * acts as. A request carrying the cookie (and no X-API-Key) authenticates as that key: the same roles,
 * limits, metering and revocation. Its writes also carry a CSRF token derived from the secret, which
 * the page holds in memory only.
 */

/** The cookie is sent to the console and to the API it calls, nowhere else. */
const COOKIE_PATH = '/console'

/** A session as a request authenticated by it sees it. */
export interface ConsoleSessionState {
  sessionId: string
  orgId: string
  keyId: string
  createdAt: string
  expiresAt: string
  /** The cookie's secret (never logged, never stored): the CSRF token is derived from it. */
  secret: string
}

declare module 'hono' {
  interface ContextVariableMap {
    /** The console session the request authenticated with, if it did with one rather than X-API-Key. */
    consoleSession: ConsoleSessionState | undefined
  }
}

export const newSessionSecret = (): string => randomBytes(32).toString('base64url')

/** What the database keeps of a secret: its SHA-256, hex. */
export const hashSessionSecret = (secret: string): string => createHash('sha256').update(secret).digest('hex')

/** The session's CSRF token: an HMAC of a fixed label under its secret, so only the session knows it. */
export const csrfTokenOf = (secret: string): string =>
  createHmac('sha256', secret).update('rwa console csrf token').digest('base64url')

/**
 * The live session a request's cookie names, or 401 `session_ended`: never made (or made elsewhere),
 * signed out, or past its expiry. Read from the database on each request, so a sign-out on any
 * instance is honoured by every other at once. Returns the hash of its key for the key's own checks.
 */
export async function liveSessionOf(
  ctx: AppContext,
  secret: string,
): Promise<{ session: ConsoleSessionState; keyHash: string }> {
  const row = await findSessionBySecretHash(ctx.db, hashSessionSecret(secret))
  if (!row) throw sessionEnded('This console session is unknown: sign in again')
  if (row.ended_at !== null) throw sessionEnded(`This console session was signed out at ${row.ended_at}`)
  if (ctx.clock.now() >= Date.parse(row.expires_at)) {
    throw sessionEnded(`This console session expired at ${row.expires_at}: sign in again`)
  }
  return {
    session: {
      sessionId: row.session_id,
      orgId: row.org_id,
      keyId: row.key_id,
      createdAt: row.created_at,
      expiresAt: row.expires_at,
      secret,
    },
    keyHash: row.key_hash,
  }
}

const sessionEnded = (detail: string) => new ApiError('session_ended', detail)

/** Methods that change nothing, and so need no CSRF token. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

/**
 * Refuses a write through a session without the session's CSRF token in `X-CSRF-Token` (403
 * `csrf_token_invalid`). SameSite=Strict already keeps the cookie off requests another site starts;
 * the token is the second lock, against a same-site page the operator does not control.
 */
export function checkCsrf(c: Context, session: ConsoleSessionState): void {
  if (SAFE_METHODS.has(c.req.method)) return
  const sent = c.req.header(CSRF_HEADER) ?? ''
  const expected = Buffer.from(csrfTokenOf(session.secret))
  const given = Buffer.from(sent)
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw new ApiError(
      'csrf_token_invalid',
      sent === ''
        ? `A write through a console session must carry its CSRF token in ${CSRF_HEADER}`
        : `The ${CSRF_HEADER} header is not this console session's token`,
      { context: { header: CSRF_HEADER } },
    )
  }
}

/**
 * Whether the session cookie must be `Secure`: the request came over https, or the server is published
 * at an https URL (`--public-url`, behind a proxy that ends TLS).
 */
export const secureCookies = (ctx: AppContext, c: Context): boolean =>
  new URL(c.req.url).protocol === 'https:' || ctx.publicUrl().startsWith('https:')

/** The `Set-Cookie` value of a new session: HttpOnly, SameSite=Strict, for as long as it lasts. */
export function sessionCookie(secret: string, maxAgeSeconds: number, secure: boolean): string {
  return [
    `${SESSION_COOKIE}=${secret}`,
    `Path=${COOKIE_PATH}`,
    `Max-Age=${Math.max(0, Math.floor(maxAgeSeconds))}`,
    'HttpOnly',
    'SameSite=Strict',
    ...(secure ? ['Secure'] : []),
  ].join('; ')
}

/** The `Set-Cookie` value that removes the session's cookie from the browser. */
export const clearedSessionCookie = (secure: boolean): string => sessionCookie('', 0, secure)
