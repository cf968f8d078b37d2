import type { ConsoleSession, EndedSession } from '../../../src/contract/console.js'
import { SESSION_HOURS } from '../../../src/contract/console.js'
import {
  type ConsoleSessionState,
  csrfTokenOf,
  hashSessionSecret,
  newSessionSecret,
} from '../../pipeline/auth/console-session.js'
import type { Principal } from '../../pipeline/auth/principal.js'
import { deleteExpiredSessions, endSession, insertSession } from '../../pipeline/auth/queries.js'
import { isoTimestamp } from '../../platform/clock.js'
import type { AppContext } from '../../pipeline/context.js'
import { ApiError } from '../../platform/errors.js'

/*
 * Signing in to the console and out of it (docs/console.md, "Security model"). Both are writes of the
 * key's organization, audited (`session.created`, `session.ended`) through the one seam of every write.
 */

const SESSION_MS = SESSION_HOURS * 3_600_000

/** A new session for the signed-in key, and the secret its cookie carries (never stored). */
export async function createSession(
  ctx: AppContext,
  principal: Principal,
  keyExpiresAt: number | null,
): Promise<{ session: ConsoleSession; secret: string }> {
  const now = ctx.clock.now()
  const secret = newSessionSecret()
  const expires = keyExpiresAt === null ? now + SESSION_MS : Math.min(now + SESSION_MS, keyExpiresAt)
  const state: ConsoleSessionState = {
    sessionId: ctx.ids.next('ses'),
    orgId: principal.orgId,
    keyId: principal.keyId,
    createdAt: isoTimestamp(now),
    expiresAt: isoTimestamp(expires),
    secret,
  }
  // Each sign-in sweeps its organization's expired sessions: the table holds at most a few hours of
  // sign-ins, with no timer of its own.
  await deleteExpiredSessions(ctx.db, state.orgId, state.createdAt)
  await insertSession(ctx.db, {
    session_id: state.sessionId,
    secret_hash: hashSessionSecret(secret),
    org_id: state.orgId,
    key_id: state.keyId,
    created_at: state.createdAt,
    expires_at: state.expiresAt,
    ended_at: null,
  })
  ctx.record({
    orgId: state.orgId,
    action: 'session.created',
    target: { type: 'session', id: state.sessionId },
    after: { key_id: state.keyId, expires_at: state.expiresAt },
  })
  return { session: sessionAnswer(principal, state), secret }
}

/** The session as the console reads it, with its CSRF token. */
export function sessionAnswer(principal: Principal, session: ConsoleSessionState): ConsoleSession {
  return {
    session_id: session.sessionId,
    key_id: session.keyId,
    org_id: session.orgId,
    roles: [...principal.roles],
    created_at: session.createdAt,
    expires_at: session.expiresAt,
    csrf_token: csrfTokenOf(session.secret),
  }
}

/** Signs a session out: every instance refuses its cookie from now on. */
export async function signOut(ctx: AppContext, session: ConsoleSessionState): Promise<EndedSession> {
  const endedAt = isoTimestamp(ctx.clock.now())
  if (!(await endSession(ctx.db, session.sessionId, endedAt))) {
    // Authentication found it live a moment ago: a concurrent sign-out of the same session came first.
    throw new ApiError('session_ended', `This console session was signed out already`)
  }
  ctx.record({
    orgId: session.orgId,
    action: 'session.ended',
    target: { type: 'session', id: session.sessionId },
  })
  return { session_id: session.sessionId, ended_at: endedAt }
}
