import type { OpenAPIHono } from '@hono/zod-openapi'
import { authenticate } from './auth/authenticate.js'
import type { AppEnv } from './auth/principal.js'
import { registerKeyRoutes } from './billing/keys/routes.js'
import { registerPricingRoute } from './billing/pricing/routes.js'
import { registerReportRoutes } from './billing/reports/routes.js'
import { registerSubscriptionRoutes } from './billing/subscriptions/routes.js'
import { registerStripeWebhook } from './billing/subscriptions/webhook-routes.js'
import type { AppContext } from './context.js'
import { registerHealthRoutes } from './operations/health-routes.js'
import { registerMetricsRoute } from './operations/metrics-routes.js'
import { registerAttestationRoutes } from './rwa/attestations/routes.js'
import { registerCredentialRoutes } from './rwa/credentials/routes.js'
import { registerJurisdictionRoutes } from './rwa/jurisdictions/routes.js'
import { governanceGuard } from './rwa/routing.js'
import { registerStatusListRoutes } from './rwa/status-lists/routes.js'
import { registerTokenAgentRoutes } from './rwa/tokens/agent-routes.js'
import { registerTokenRoutes } from './rwa/tokens/routes.js'
import { registerTransferAgentRoutes } from './rwa/transfers/agent-routes.js'
import { registerProofKeysRoute, registerTransferRoutes } from './rwa/transfers/routes.js'
import { registerTrustRoutes } from './rwa/trust/routes.js'

/**
 * Every endpoint of the API, by area: the table of contents. Each area's routes file holds its
 * operations (schemas from src/contract) and hands the work to its service.
 */
export function registerRoutes(app: OpenAPIHono<AppEnv>, ctx: AppContext): void {
  const auth = authenticate(ctx)

  // Billing (/console/billing/): pricing is public; everything else takes an API key.
  registerPricingRoute(app)
  registerKeyRoutes(app, ctx, auth)
  registerSubscriptionRoutes(app, ctx, auth)
  registerReportRoutes(app, ctx, auth)

  // Governance (/console/rwa/): the proof keys and status lists are public; everything else needs a
  // key and a plan.
  const guard = governanceGuard(ctx, auth)
  registerProofKeysRoute(app, ctx)
  registerStatusListRoutes(app, ctx)
  registerTrustRoutes(app, ctx, guard) // before /jurisdictions/{id}, which would take `trust` as an id
  registerJurisdictionRoutes(app, ctx, guard)
  registerCredentialRoutes(app, ctx, guard)
  registerAttestationRoutes(app, ctx, guard)
  registerTokenRoutes(app, ctx, guard)
  registerTokenAgentRoutes(app, ctx, guard)
  registerTransferRoutes(app, ctx, guard)
  registerTransferAgentRoutes(app, ctx, guard)

  // The payment provider's signed webhook: public, authenticated by its signature.
  registerStripeWebhook(app, ctx)

  // Operations: probes for load balancers (public, never rate limited) and metrics (admin key).
  registerHealthRoutes(app, ctx)
  registerMetricsRoute(app, ctx)
}
