import { createRoute, type OpenAPIHono } from '@hono/zod-openapi'
import type { Context, MiddlewareHandler } from 'hono'
import {
  CONSOLE_SESSION_PATH,
  type ConsoleSession,
  type EndedSession,
  type SignInRequest,
  signInRequestSchema,
} from '../../../src/contract/console.js'
import { authenticate, charged, knownKeyOf } from '../../pipeline/auth/authenticate.js'
import type { KnownKey } from '../../platform/caches/auth-cache.js'
import { clearedSessionCookie, secureCookies, sessionCookie } from '../../pipeline/auth/console-session.js'
import type { AppEnv } from '../../pipeline/auth/principal.js'
import type { AppContext } from '../../pipeline/context.js'
import { ApiError } from '../../platform/errors.js'
import { sessionSecretOf } from '../../platform/http/session-cookie.js'
import { chargeClient } from '../../pipeline/limits/public-limit.js'
import { actorOf, runWrite } from '../../pipeline/writes/run-write.js'
import { createSession, sessionAnswer, signOut } from './service.js'

/*
 * The console's session endpoint (docs/console.md, "Security model"): `POST` signs in with an API key
 * (the key counts this request like any other: its limits, its metering), `GET` reads the session and
 * its CSRF token back (a page reloaded keeps nothing in the browser but the cookie), `DELETE` signs out.
 * Not operations of the route table: the console's own, hidden from /openapi.json.
 */

/** POST's body, validated by its schema before anything else (errors name `api_key`). */
const signInRoute = createRoute({
  method: 'post',
  path: CONSOLE_SESSION_PATH,
  hide: true,
  request: {
    body: { content: { 'application/json': { schema: signInRequestSchema } }, required: true },
  },
  responses: { 201: { description: 'Signed in: the session, its cookie set' } },
})

export function registerConsoleSession(app: OpenAPIHono<AppEnv>, ctx: AppContext): void {
  const auth = authenticate(ctx)
  // Signing in authenticates the key the body names, once the body is valid.
  const signingIn = new WeakMap<Context, KnownKey>()
  const signInAuth = authenticate(ctx, async (ctx, c) => {
    const { api_key } = (c.req.valid as (target: 'json') => SignInRequest)('json')
    const key = await charged(ctx, c, () => knownKeyOf(ctx, api_key))
    signingIn.set(c, key)
    return key
  })

  app.openapi(signInRoute, async (c) => {
    let session: ConsoleSession | undefined
    let secret = ''
    await signInAuth(c, async () => {
      const principal = c.get('principal')
      const keyExpiresAt = signingIn.get(c)?.expiresAt ?? null
      const created = await runWrite(ctx, { actor: actorOf(principal), requestId: c.get('requestId') }, () =>
        createSession(ctx, principal, keyExpiresAt),
      )
      session = created.session
      secret = created.secret
    })
    const answer = session as ConsoleSession
    const maxAge = (Date.parse(answer.expires_at) - ctx.clock.now()) / 1000
    return c.json(answer, 201, {
      'Set-Cookie': sessionCookie(secret, maxAge, secureCookies(ctx, c)),
      'Cache-Control': 'no-store',
    })
  })

  app.get(CONSOLE_SESSION_PATH, withSessionCookie(ctx), auth, (c) =>
    c.json(sessionAnswer(c.get('principal'), sessionOf(c)), 200, { 'Cache-Control': 'no-store' }),
  )

  app.delete(CONSOLE_SESSION_PATH, withSessionCookie(ctx), auth, async (c) => {
    const session = sessionOf(c)
    const ended: EndedSession = await runWrite(
      ctx,
      { actor: actorOf(c.get('principal')), requestId: c.get('requestId') },
      () => signOut(ctx, session),
    )
    return c.json(ended, 200, {
      'Set-Cookie': clearedSessionCookie(secureCookies(ctx, c)),
      'Cache-Control': 'no-store',
    })
  })
}

/** Refuses a request to the session endpoint that carries no session cookie, as a missing key is. */
function withSessionCookie(ctx: AppContext): MiddlewareHandler<AppEnv> {
  return async function requireSessionCookie(c, next) {
    if (sessionSecretOf(c.req.header('cookie')) === undefined) {
      await chargeClient(ctx, c)
      throw new ApiError('session_ended', 'No console session: sign in at /console/ui/')
    }
    await next()
  }
}

/** The session the request authenticated with; a request that sent X-API-Key too has none. */
function sessionOf(c: Context<AppEnv>) {
  const session = c.get('consoleSession')
  if (!session) {
    throw new ApiError('session_ended', 'This request authenticated with X-API-Key, not a console session')
  }
  return session
}
