import { approvalRoutes } from './approvals-routes.js'
import { auditRoutes } from './audit-routes.js'
import { billingRoutes, paymentProviderRoutes } from './billing-routes.js'
import { eventRoutes, eventStreamRoutes, webhookRoutes } from './events-routes.js'
import { identityRoutes } from './identities-routes.js'
import { issuerRoutes } from './issuers-routes.js'
import { operationsRoutes } from './operations-routes.js'
import { rwaRoutes } from './rwa-routes.js'

/**
 * Every operation of the API, keyed by operationId: the table of contents. The order is the routing
 * order (a literal path segment before a `{parameter}` of the same position) and the order of the
 * OpenAPI document.
 */
export const ROUTES = {
  ...billingRoutes,
  ...rwaRoutes,
  ...issuerRoutes,
  ...identityRoutes,
  ...approvalRoutes,
  ...paymentProviderRoutes,
  ...auditRoutes,
  ...eventStreamRoutes,
  ...eventRoutes,
  ...webhookRoutes,
  ...operationsRoutes,
} as const

export type Routes = typeof ROUTES
