import type { Context, MiddlewareHandler } from 'hono'
import { matchedRoutes } from 'hono/route'
import type { AppEnv } from '../../pipeline/auth/principal.js'
import { REQUEST_ID, setAnswerHeaders } from '../../platform/http/answer-headers.js'
import type { Logger } from '../../platform/logging/logger.js'
import type { ServerMetrics } from '../../platform/metrics/metrics.js'

/** The route label of a request no route matched: paths are not labels (unbounded, and callers' input). */
export const UNMATCHED_ROUTE = 'unmatched'

/**
 * The first middleware of every request. It gives the request its `X-Request-Id`, on the request and
 * its response: the caller's when it is 1–128 characters of letters, digits, `_`, `-` or `=`, else a
 * new UUID (problem details and the log line carry it too). Once the response is ready it logs one
 * line and counts the request in the metrics: request id, method, route template, path, status,
 * duration, and the organization and key when one was authenticated. Never a header, a query string,
 * a body or a key: nothing else is read. One middleware rather than two: each async layer hono runs
 * costs ~3 µs a request (docs/performance.md, "The request path").
 */
export function observeRequests(logger: Logger, metrics: ServerMetrics): MiddlewareHandler<AppEnv> {
  return async function observeRequest(c, next) {
    const started = performance.now()
    const requestId = requestIdOf(c.req.header('X-Request-Id'))
    c.set('requestId', requestId)
    setAnswerHeaders(c, { 'X-Request-Id': requestId })
    await next()
    const principal = c.get('principal') as AppEnv['Variables']['principal'] | undefined
    recordAnswer(
      logger,
      metrics,
      started,
      requestId,
      c.req.method,
      routeTemplate(c),
      c.req.path,
      c.res.status,
      principal,
    )
  }
}

/** A request's id: the caller's `X-Request-Id` when it is well formed (`REQUEST_ID`), else a new UUID. */
export function requestIdOf(given: string | undefined): string {
  return given !== undefined && REQUEST_ID.test(given) ? given : crypto.randomUUID()
}

/**
 * What every answered request gets, whoever answered it (the app, or a prepared answer at the door:
 * server/areas/operations/answer-at-the-door.ts): counted and timed in the metrics by method, route
 * template and status, and one log line, at error for a 500, warn above it, else info.
 */
export function recordAnswer(
  logger: Logger,
  metrics: ServerMetrics,
  started: number,
  requestId: string,
  method: string,
  route: string,
  path: string,
  status: number,
  principal?: { orgId?: string; keyId?: string },
): void {
  const milliseconds = performance.now() - started
  metrics.requestAnswered(method, route, status, milliseconds / 1000)
  const fields = {
    request_id: requestId,
    method,
    route,
    path,
    status,
    duration_ms: Math.round(milliseconds * 100) / 100,
    org_id: principal?.orgId,
    key_id: principal?.keyId,
  }
  // A 500 is a bug; a 503 (not ready, draining) is expected while it lasts.
  if (status === 500) logger.error(fields, 'request')
  else if (status > 500) logger.warn(fields, 'request')
  else logger.info(fields, 'request')
}

/** Hono's `:id` parameters in OpenAPI's `{id}` form, once per route. */
const templates = new Map<string, string>()

/**
 * The template of the route that answered (`/console/rwa/tokens/{id}`): the first route matching
 * method and path, as Hono tries them in order. Middleware registered for every path does not count.
 */
export function routeTemplate(c: Context): string {
  for (const route of matchedRoutes(c)) {
    if (route.method === 'ALL') continue
    let template = templates.get(route.path)
    if (template === undefined) {
      template = route.path.replace(/:(\w+)(\{[^}]*\})?/g, '{$1}')
      templates.set(route.path, template)
    }
    return template
  }
  return UNMATCHED_ROUTE
}
