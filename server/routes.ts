import type { OpenAPIHono, RouteConfig } from '@hono/zod-openapi'
import type { MiddlewareHandler } from 'hono'
import {
  type Access,
  checksRoles,
  isPubliclyLimited,
  type OperationSpec,
  takesIdempotencyKey,
} from '../src/contract/operation.js'
import { ROUTES, type Routes } from '../src/contract/routes.js'
import { type ApprovableOperationId, approvalHandlers } from './areas/approvals/routes.js'
import { requestIfCovered } from './areas/approvals/service.js'
import { auditHandlers } from './areas/audit/routes.js'
import { auditLogHandlers } from './areas/audit-log/routes.js'
import { adminKeyOnly, authenticator, requireAdminKey } from './pipeline/auth/authenticate.js'
import type { AppEnv } from './pipeline/auth/principal.js'
import { keyHandlers } from './areas/billing/keys/routes.js'
import { pricingHandlers } from './areas/billing/pricing/routes.js'
import { reportHandlers } from './areas/billing/reports/routes.js'
import { subscriptionHandlers } from './areas/billing/subscriptions/routes.js'
import { stripeWebhookHandlers } from './areas/billing/subscriptions/webhook-routes.js'
import type { AppContext } from './pipeline/context.js'
import { eventHandlers } from './areas/events/routes.js'
import { webhookHandlers } from './areas/webhooks/routes.js'
import type { Handler, HandlerInput, Handlers } from './pipeline/handler.js'
import { routeOf } from './platform/http/openapi.js'
import { bindValidated } from './platform/http/validate-input.js'
import { idempotentRequest, storeInWrite } from './pipeline/idempotency/idempotent-request.js'
import { publicRateLimit } from './pipeline/limits/public-limit.js'
import { healthHandlers } from './areas/operations/health-routes.js'
import { metricsHandlers } from './areas/operations/metrics-routes.js'
import { attestationHandlers } from './areas/rwa/attestations/routes.js'
import { batchHandlers } from './areas/rwa/batch/routes.js'
import { credentialHandlers } from './areas/rwa/credentials/routes.js'
import { identityHandlers } from './areas/rwa/identities/routes.js'
import { issuerHandlers } from './areas/rwa/issuers/routes.js'
import { jurisdictionHandlers } from './areas/rwa/jurisdictions/routes.js'
import { statusListHandlers } from './areas/rwa/status-lists/routes.js'
import { tokenAgentHandlers } from './areas/rwa/tokens/agent-routes.js'
import { tokenHandlers } from './areas/rwa/tokens/routes.js'
import { transferAgentHandlers } from './areas/rwa/transfers/agent-routes.js'
import { transferHandlers } from './areas/rwa/transfers/routes.js'
import { trustHandlers } from './areas/rwa/trust/routes.js'
import { trustBundleHandlers } from './areas/rwa/trust-bundle/routes.js'
import { signingKeyHandlers } from './areas/signing/routes.js'
import { actorOf, appendRecorded, runWrite } from './pipeline/writes/run-write.js'

/** The handler of every operation but four eyes' own (which run the others'). */
const OPERATION_HANDLERS = {
  ...pricingHandlers,
  ...keyHandlers,
  ...subscriptionHandlers,
  ...reportHandlers,
  ...stripeWebhookHandlers,
  ...statusListHandlers,
  ...trustHandlers,
  ...jurisdictionHandlers,
  ...credentialHandlers,
  ...attestationHandlers,
  ...issuerHandlers,
  ...identityHandlers,
  ...tokenHandlers,
  ...tokenAgentHandlers,
  ...transferHandlers,
  ...transferAgentHandlers,
  ...healthHandlers,
  ...metricsHandlers,
  ...trustBundleHandlers,
  ...signingKeyHandlers,
  ...auditHandlers,
  ...auditLogHandlers,
  ...eventHandlers,
  ...webhookHandlers,
  // A batch runs each of its operations by that operation's own handler (docs/batches.md).
  ...batchHandlers(async (ctx, operationId, input) =>
    (HANDLERS[operationId] as Handler<OperationSpec>)(ctx, input as never),
  ),
}

/**
 * The handler of every declared operation (src/contract/routes.ts), from each aggregate's `routes.ts`:
 * an operation declared without a handler, or a handler for no operation, does not compile.
 */
const HANDLERS: Handlers<Routes> = {
  ...OPERATION_HANDLERS,
  ...approvalHandlers(
    (operationId: ApprovableOperationId) =>
      OPERATION_HANDLERS[operationId] as unknown as Handler<OperationSpec>,
  ),
}

/**
 * The middleware an operation's `access` and `roles` name, run before its input is validated: the key,
 * then its roles (a refusal the key can read whatever its plan), then the plan.
 */
function accessMiddleware(ctx: AppContext): (operation: OperationSpec) => MiddlewareHandler<AppEnv>[] {
  const auth = authenticator(ctx)
  // The payment provider's webhook shares the bucket: Stripe answers any non-2xx (a 429 too) by
  // redelivering with backoff for days, so an event throttled in a burst comes late but is never lost;
  // exempt, it would be the one public POST a flood could use to make the server read and HMAC 1 MiB
  // bodies without limit.
  const publicLimit = publicRateLimit(ctx)
  return (operation) => {
    const what = `${operation.method.toUpperCase()} ${operation.path}`
    const roles = checksRoles(operation) ? operation : undefined
    const idempotent = takesIdempotencyKey(operation) ? [idempotentRequest(ctx, operation)] : []
    const byAccess: Record<Access, () => MiddlewareHandler<AppEnv>[]> = {
      public: () => (isPubliclyLimited(operation) ? [publicLimit] : []),
      key: () => [auth({ roles })],
      admin: () => [auth(), requireAdminKey(what)],
      governance: () => [auth({ roles, governance: true })],
      operator: () => [adminKeyOnly(ctx, what)],
    }
    return [...byAccess[operation.access](), ...idempotent]
  }
}

/**
 * Binds every operation of the table, in its order (the routing order), to its handler: the access
 * middleware from its declaration, its input validated by its schemas, its answer with its status. A
 * write (any method but GET) by a key runs as one write (server/pipeline/writes/run-write.ts): one transaction
 * carrying the key as its actor and the request id, whose changes become audit events when it commits.
 * The payment provider's webhook opens its write itself, with the provider as the actor.
 */
export function registerRoutes(app: OpenAPIHono<AppEnv>, ctx: AppContext): void {
  const middlewareOf = accessMiddleware(ctx)
  for (const [operationId, operation] of Object.entries(ROUTES) as Array<[keyof Routes, OperationSpec]>) {
    bindOperation(
      app,
      ctx,
      operation,
      HANDLERS[operationId] as Handler<OperationSpec>,
      middlewareOf(operation),
    )
  }
}

function bindOperation(
  app: OpenAPIHono<AppEnv>,
  ctx: AppContext,
  operation: OperationSpec,
  handler: Handler<OperationSpec>,
  middleware: MiddlewareHandler<AppEnv>[],
): void {
  const { status } = operation.response
  // An optional body sent absent (or with another content type) is not parsed: it reads as `{}`.
  const bodyOf = operation.body?.required === false ? (body: unknown) => body ?? {} : (body: unknown) => body
  const isWrite = operation.method !== 'get' && operation.access !== 'public'
  // As `app.openapi(route, handler)`, the input validated by one synchronous layer
  // (server/platform/http/validate-input.ts) instead of @hono/zod-openapi's chain of async ones.
  const validatedBody = operation.body && !operation.body.raw ? operation.body : undefined
  bindValidated(app, routeOf(operation) as RouteConfig, validatedBody, middleware, async (c) => {
    /** The handler's answer: a record, or a Response it made itself (four eyes' 202, an approval's). */
    const answer = async (): Promise<unknown> => {
      // Typed per route by hono; this binding is one for every route, so it reads them untyped.
      const req = c.req as unknown as { valid(target: 'param' | 'query' | 'json'): unknown }
      const input = {
        params: req.valid('param') as { id: string } | undefined,
        query: req.valid('query'),
        body: bodyOf(req.valid('json')),
        principal: c.get('principal'),
        c,
      }
      // Four eyes (docs/accountability.md, "Four eyes"): a call the organization's policy covers waits for a
      // second key instead.
      if (operation.approval && input.params) {
        const pending = await requestIfCovered(
          ctx,
          input.principal,
          operation.approval,
          input.params.id,
          input.body,
        )
        if (pending) return c.json(pending, 202)
      }
      return handler(ctx, input as HandlerInput<OperationSpec>)
    }
    const respond = (value: unknown) => (value instanceof Response ? value : c.json(value as object, status))
    if (!isWrite) return respond(await answer()) as never
    const origin = { actor: actorOf(c.get('principal')), requestId: c.get('requestId') }
    return (await runWrite(ctx, origin, async () => {
      const value = await answer()
      // The write's audit events appended now, its work done: the log row is the last lock it takes,
      // and the answer carries its events' real log positions (a transfer's log_index:
      // docs/governance.md, "The verifiable log").
      await appendRecorded(ctx)
      const response = respond(value)
      // The answer an Idempotency-Key replays is stored in the write, committed with it.
      await storeInWrite(ctx.db, c, response)
      return response
    })) as never
  })
}
