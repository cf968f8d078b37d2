import { OpenAPIHono } from '@hono/zod-openapi'
import { bodyLimit } from './platform/http/body-limit.js'
import type { AppEnv } from './pipeline/auth/principal.js'
import type { AppContext } from './pipeline/context.js'
import { ApiError } from './platform/errors.js'
import { allowedMethodsOf } from './platform/http/allowed-methods.js'
import { errorHandler, notFoundHandler } from './platform/http/error-handler.js'
import { registerDocsPage } from './platform/http/docs-page.js'
import { registerOpenApiComponents } from './platform/http/openapi.js'
import { registerOpenApiJson } from './platform/http/openapi-json.js'
import { refuseInvalidInput } from './platform/http/validate-input.js'
import { chargeUnauthenticated, publicRateLimit } from './pipeline/limits/public-limit.js'
import { observeRequests } from './areas/operations/observe-requests.js'
import { registerRoutes } from './routes.js'
import { RouteTableRouter } from './platform/http/route-table-router.js'
import { registerConsole } from './areas/console/routes.js'
import { ROUTES } from '../src/contract/routes.js'
import { answersAtTheDoor } from './areas/operations/answer-at-the-door.js'
import { pricingAnswer } from './areas/billing/pricing/routes.js'
import type { DoorAnswers } from './platform/http/node-server.js'

/** Request bodies above this are refused with 413 before they are read whole. */
export const MAX_BODY_BYTES = 1024 * 1024

/**
 * The HTTP API as a Hono app: every route validated by its contract schema, every error rendered as
 * problem details. It holds no state of its own; everything lives in `ctx`.
 */
export function createApp(ctx: AppContext): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>({
    // hono's RegExpRouter for the table, rather than SmartRouter's fallback to the trie for every path.
    router: new RouteTableRouter(),
    // The operations validate their input themselves (server/routes.ts), through the same hook.
    defaultHook: refuseInvalidInput,
  })
  app.onError(errorHandler(ctx.logError))
  // app.routes is read on the first miss, when every route below is registered. A request no route
  // answers authenticates nothing, whatever key it carries: it counts against its client's bucket.
  const notFound = notFoundHandler(allowedMethodsOf(app.routes))
  app.notFound(async (c) => (await chargeUnauthenticated(ctx, c)) ?? notFound(c))
  // First, so that every response, refusals and errors included, carries the request id and is logged.
  app.use('*', observeRequests(ctx.logger, ctx.metrics))
  app.use(
    '*',
    bodyLimit({
      maxSize: MAX_BODY_BYTES,
      // Refused before its route authenticates it: counted against its client's bucket too.
      onError: async (c) => {
        const overBudget = await chargeUnauthenticated(ctx, c)
        if (overBudget) return overBudget
        throw new ApiError('payload_too_large', `Request body exceeds ${MAX_BODY_BYTES} bytes (1 MiB)`, {
          context: { max_bytes: MAX_BODY_BYTES },
        })
      },
    }),
  )

  registerOpenApiComponents(app)
  registerRoutes(app, ctx)

  // The document and the reference page are public too: the same per-client bucket as the public
  // operations (server/routes.ts).
  const publicLimit = publicRateLimit(ctx)
  app.use('/openapi.json', publicLimit)
  app.use('/docs', publicLimit)
  app.use('/docs/*', publicLimit)
  registerOpenApiJson(app)
  registerDocsPage(app)
  // The console (docs/console.md): its session endpoint, its page and its files.
  registerConsole(app, ctx)
  return app
}

/**
 * What the Node server answers itself before the app (server/areas/operations/answer-at-the-door.ts): the
 * price list, whose bytes never change, with everything the app would give it.
 */
export function createDoorAnswers(ctx: AppContext): DoorAnswers {
  return answersAtTheDoor(ctx, [{ operation: ROUTES.getPricing, prepared: () => pricingAnswer }])
}
