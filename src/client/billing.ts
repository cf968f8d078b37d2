import { billingRoutes } from '../contract/billing-routes.js'
import type { HttpClient } from './http.js'
import { type OperationClient, operationClient } from './operations.js'

/** The billing operations under `/console/billing/`. */
export type BillingClient = OperationClient<typeof billingRoutes>

/**
 * The billing operations alone, over a transport already made: the CLI's billing commands load neither
 * the governance table nor the schemas of src/contract/rwa.ts (see docs/performance.md, "CLI cold start").
 */
export function billingClientOver(http: HttpClient): BillingClient {
  return operationClient(http, billingRoutes)
}
