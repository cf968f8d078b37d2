/**
 * The typed rwa HTTP client. It knows the base URL, the API key, timeouts and retries; nothing about
 * the terminal. Responses are parsed with the src/contract schemas; errors are typed.
 *
 * @example
 * const rwa = createClient({ baseUrl: 'http://127.0.0.1:4600', apiKey })
 * const { data } = await rwa.billing.listKeys()
 * await rwa.close()
 */
import { BillingClient } from './billing.js'
import { GovernanceClient } from './governance.js'
import { type ClientOptions, HttpClient } from './http.js'

export * from './errors.js'
export type { ApiResponse, ClientOptions, Query } from './http.js'
export { BillingClient, GovernanceClient, HttpClient }

export interface RwaClient {
  readonly baseUrl: string
  readonly http: HttpClient
  readonly billing: BillingClient
  readonly governance: GovernanceClient
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
    billing: new BillingClient(http),
    governance: new GovernanceClient(http),
    close: () => http.close(),
  }
}
