import type { OpenAPIHono } from '@hono/zod-openapi'
import { healthSchema, notReadySchema, readinessSchema } from '../../src/contract/operations.js'
import type { AppEnv } from '../auth/principal.js'
import type { AppContext } from '../context.js'
import { ApiError } from '../errors.js'
import { PROBLEM_JSON, problemOf } from '../http/error-handler.js'
import { defineRoute, jsonResponse, operationsTags } from '../http/openapi.js'

const NO_STORE = { 'Cache-Control': 'no-store' }

const healthz = defineRoute({
  method: 'get',
  path: '/healthz',
  operationId: 'getHealth',
  access: 'public',
  tags: operationsTags,
  summary: 'Liveness: the process answers (public, not rate limited)',
  description: 'Answers 200 as long as the process serves HTTP, also while it drains before shutting down.',
  responses: { 200: jsonResponse(healthSchema, 'The process answers', { status: 'ok' }) },
})

const readyz = defineRoute({
  method: 'get',
  path: '/readyz',
  operationId: 'getReadiness',
  access: 'public',
  tags: operationsTags,
  summary: 'Readiness: the instance may take traffic (public, not rate limited)',
  description:
    'Ready when the database answers, every migration is applied and Redis answers (when configured). ' +
    'From the first SIGTERM on it answers 503 (`shutdown`) while the server still serves requests, so a ' +
    'load balancer takes the instance out of rotation before it stops accepting connections.',
  responses: {
    200: jsonResponse(readinessSchema, 'Ready: every check passed', {
      status: 'ready',
      checks: [
        { name: 'database', ready: true },
        { name: 'migrations', ready: true },
      ],
    }),
    503: {
      description: 'Not ready: problem details (`unavailable`) naming each check that failed',
      content: {
        [PROBLEM_JSON]: {
          schema: notReadySchema,
          example: {
            type: 'urn:rwa:problem:unavailable',
            title: 'Service unavailable',
            status: 503,
            detail: 'Not ready: migrations (pending: 0002-governance)',
            code: 'unavailable',
            reason: 'not_ready',
            context: { failing: ['migrations'] },
            request_id: '6f1c2b9e-3d4a-4c57-9a1e-2b8f0c7d5e31',
            checks: [
              { name: 'database', ready: true },
              { name: 'migrations', ready: false, detail: 'pending: 0002-governance' },
            ],
          },
        },
      },
    },
  },
})

/** `GET /healthz` and `GET /readyz`: public, unauthenticated, never rate limited, cheap. */
export function registerHealthRoutes(app: OpenAPIHono<AppEnv>, ctx: AppContext): void {
  const healthBody = JSON.stringify({ status: 'ok' })
  app.openapi(
    healthz,
    (c) => c.body(healthBody, 200, { 'Content-Type': 'application/json', ...NO_STORE }) as never,
  )

  app.openapi(readyz, async (c) => {
    const checks = await ctx.readiness.evaluate()
    const failing = checks.filter((check) => !check.ready)
    if (failing.length === 0) {
      return c.body(JSON.stringify({ status: 'ready', checks }), 200, {
        'Content-Type': 'application/json',
        ...NO_STORE,
      }) as never
    }
    const reasons = failing.map((check) => `${check.name} (${check.detail})`).join('; ')
    const problem = problemOf(
      c,
      new ApiError('not_ready', `Not ready: ${reasons}`, {
        context: { failing: failing.map((check) => check.name) },
      }),
    )
    return c.body(JSON.stringify({ ...problem, checks }), 503, {
      'Content-Type': PROBLEM_JSON,
      ...NO_STORE,
    }) as never
  })
}
