import { ApiError } from '../../platform/errors.js'
import type { SomeHandlers } from '../../pipeline/handler.js'
import { PROBLEM_JSON, problemOf } from '../../platform/http/error-handler.js'

const NO_STORE = { 'Cache-Control': 'no-store' }

const healthBody = JSON.stringify({ status: 'ok' })

/** `GET /healthz` and `GET /readyz`: public, unauthenticated, never rate limited, cheap. */
export const healthHandlers = {
  getHealth: (_ctx, { c }) => c.body(healthBody, 200, { 'Content-Type': 'application/json', ...NO_STORE }),
  getReadiness: async (ctx, { c }) => {
    const checks = await ctx.readiness.evaluate()
    const failing = checks.filter((check) => !check.ready)
    if (failing.length === 0) {
      return c.body(JSON.stringify({ status: 'ready', checks }), 200, {
        'Content-Type': 'application/json',
        ...NO_STORE,
      })
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
    })
  },
} satisfies SomeHandlers
