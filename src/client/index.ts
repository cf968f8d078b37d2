/**
 * The typed rwa HTTP client. It knows the base URL, the API key, timeouts and retries; nothing about
 * the terminal. Every operation of the route tables (src/contract/*-routes.ts) is a method named by its
 * operationId, taking `{ params, query, body }` as its declaration says; responses are parsed with the
 * contract schemas; errors are typed.
 *
 * @example
 * const rwa = createClient({ baseUrl: 'http://127.0.0.1:4600', apiKey })
 * const { data } = await rwa.billing.listKeys()
 * const token = await rwa.governance.getToken({ params: { id: 'tok_...' } })
 * await rwa.close()
 */
import { approvalRoutes } from '../contract/approvals-routes.js'
import { auditRoutes } from '../contract/audit-routes.js'
import { eventRoutes, webhookRoutes } from '../contract/events-routes.js'
import { identityRoutes } from '../contract/identities-routes.js'
import { rwaRoutes } from '../contract/rwa-routes.js'
import { type BillingClient, billingClientOver } from './billing.js'
import { type ClientOptions, HttpClient } from './http.js'
import { type OperationClient, operationClient } from './operations.js'

export * from './errors.js'
export type { ApiResponse, ClientOptions, Query } from './http.js'
export { callOperation, type OperationClient, operationClient } from './operations.js'
export { type BillingClient, billingClientOver, HttpClient }
/** The governance operations under `/console/rwa/`, the JWKS, the status lists and the identities included. */
export type GovernanceClient = OperationClient<typeof rwaRoutes & typeof identityRoutes>

/** Four eyes: the approval policy and the approvals (`/console/rwa/policy`, `/console/rwa/approvals`). */
export type ApprovalClient = OperationClient<typeof approvalRoutes>

/** The audit log (`/console/audit`). */
export type AuditClient = OperationClient<typeof auditRoutes>

/** Events and webhook endpoints (`/console/events`, `/console/webhooks`). */
export type EventsClient = OperationClient<typeof eventRoutes & typeof webhookRoutes>

export interface RwaClient {
  readonly baseUrl: string
  readonly http: HttpClient
  readonly billing: BillingClient
  readonly governance: GovernanceClient
  readonly approvals: ApprovalClient
  readonly audit: AuditClient
  readonly events: EventsClient
  close(): Promise<void>
}

/** A client for one server and one API key. */
export function createClient(options: ClientOptions): RwaClient {
  return clientOver(new HttpClient(options))
}

/** The whole client over a transport already made (the CLI makes it first, for its billing commands). */
export function clientOver(http: HttpClient): RwaClient {
  return {
    baseUrl: http.baseUrl,
    http,
    billing: billingClientOver(http),
    governance: operationClient(http, { ...rwaRoutes, ...identityRoutes }),
    approvals: operationClient(http, approvalRoutes),
    audit: operationClient(http, auditRoutes),
    events: operationClient(http, { ...eventRoutes, ...webhookRoutes }),
    close: () => http.close(),
  }
}
