import { createRoute, type OpenAPIHono, type RouteConfig } from '@hono/zod-openapi'
import type { Env } from 'hono'
import { type ZodType, z } from 'zod'
import { problemSchema } from '../../src/contract/errors.js'
import { problemResponse, rateLimitHeaders, requestIdHeader } from './openapi-refusals.js'

/*
 * The OpenAPI side of every route. `defineRoute` takes what is particular to an operation (its
 * schemas, its main answer, the refusals its rules can produce) and adds what follows from whether it
 * takes an API key and a body: the security requirement, the RateLimit headers, and the standard
 * refusals (400; 401/429 with a key; 403 for governance; 413/415 with a body). A route added later
 * gets all of it by saying `access` and `request`.
 */

/** What the served document says of the API as a whole; the paths and components come from the routes. */
export const OPENAPI_DOCUMENT = {
  openapi: '3.1.0',
  info: {
    title: 'rwa',
    version: '0.1.0',
    description:
      'Cross-border governance of tokenized real-world assets (`/console/rwa/`), and the API-key billing that pays for it (`/console/billing/`). Errors are RFC 9457 problem details.',
    // package.json says UNLICENSED: no licence is granted. The link says what that means (an SPDX
    // `LicenseRef-` id would be valid too, but Swagger UI turns it into a dead link to spdx.org).
    license: {
      name: 'UNLICENSED (no licence granted)',
      url: 'https://docs.npmjs.com/cli/v11/configuring-npm/package-json#license',
    },
  },
  servers: [{ url: '/', description: 'The server this document is served by' }],
  tags: [
    { name: 'billing', description: 'API keys, subscriptions, usage, pricing and the payment webhook' },
    {
      name: 'governance',
      description:
        'Jurisdictions, trust, credentials, attestations, tokens, transfers and compliance proofs (Pro, Enterprise or an active trial)',
    },
    {
      name: 'operations',
      description: "Probes for load balancers and orchestrators, and the server's Prometheus metrics",
    },
  ],
}

/** The OpenAPI tag of what operators and load balancers call: the probes and the metrics. */
export const operationsTags = ['operations']

/** Name of the API-key security scheme in `components.securitySchemes`. */
export const API_KEY_SCHEME = 'ApiKey'

/**
 * Who may call an operation: anyone (`public`), any valid API key (`key`: authentication, limits and
 * metering), a key of an organization with a paid tier or an active trial (`governance`), or the admin
 * key alone, neither limited nor metered (`admin`: operators' tools such as a metrics scraper).
 */
export type Access = 'public' | 'key' | 'governance' | 'admin'

/** Refusals a route declares because its own rules produce them; the standard ones are added for it. */
export type RouteRefusal = 403 | 404 | 409 | 422 | 503

/** A required JSON request body validated by `schema`, with an example for the document. */
export const jsonBody = <T extends ZodType>(schema: T, example: z.input<T>) =>
  ({ content: { 'application/json': { schema, example } }, required: true }) as const

/** An optional JSON request body (absent, or sent with another content type, it reads as `{}`). */
export const optionalJsonBody = <T extends ZodType>(schema: T, example: z.input<T>) =>
  ({ content: { 'application/json': { schema, example } }, required: false }) as const

/** A JSON response documented by `schema`, with an example of the body. */
export const jsonResponse = <T extends ZodType>(schema: T, description: string, example: z.output<T>) =>
  ({ content: { 'application/json': { schema, example } }, description }) as const

/** What a route says about itself; `defineRoute` adds the rest. */
export type RouteSpec = Omit<RouteConfig, 'security' | 'operationId'> & {
  /** A stable name for generated clients, e.g. `createKey`. */
  operationId: string
  access: Access
  /** Refusals the route's rules can produce beyond the standard ones (e.g. 404 for an unknown id). */
  refusals?: readonly RouteRefusal[]
}

/** A query with no parameters: unknown ones are refused like unknown body fields. */
const noQuery = z.strictObject({})

/**
 * An OpenAPI route with everything that follows from its `access` and `request`: the API-key security
 * requirement (none for public routes), RateLimit headers on every answer given after authentication,
 * and the standard refusals. A route without a query schema refuses any query parameter (400).
 */
export function defineRoute<const S extends RouteSpec>(spec: S) {
  const { access, refusals = [], ...route } = spec
  const request = { ...route.request, query: route.request?.query ?? noQuery }
  const keyed = access !== 'public'
  // Limits and metering apply to `key` and `governance`: their answers carry the RateLimit headers.
  const limited = access === 'key' || access === 'governance'
  const statuses = new Set<number>([400, ...refusals])
  if (keyed) statuses.add(401)
  if (limited) statuses.add(429)
  if (access === 'governance' || access === 'admin') statuses.add(403)
  if (route.request?.body) statuses.add(413).add(415)

  const main = Object.fromEntries(
    Object.entries(route.responses).map(([status, response]) => [
      status,
      '$ref' in response
        ? response
        : {
            ...response,
            headers: { ...(limited ? rateLimitHeaders : {}), ...requestIdHeader, ...response.headers },
          },
    ]),
  )
  const standard = Object.fromEntries(
    [...statuses].sort().map((status) => [status, problemResponse(status, limited)]),
  )
  return createRoute({
    ...route,
    request,
    security: keyed ? [{ [API_KEY_SCHEME]: [] }] : [],
    responses: { ...standard, ...main },
  }) as unknown as S & { getRoutingPath(): string }
}

const integerHeader = (description: string) => ({
  description,
  required: true,
  schema: { type: 'integer' as const, minimum: 0 },
})

/**
 * Registers what every route refers to: the API-key security scheme, the Problem schema and the
 * RateLimit and Retry-After headers.
 */
export function registerOpenApiComponents<E extends Env>(app: OpenAPIHono<E>): void {
  const registry = app.openAPIRegistry
  registry.registerComponent('securitySchemes', API_KEY_SCHEME, {
    type: 'apiKey',
    in: 'header',
    name: 'X-API-Key',
    description:
      'An API key: `rwa_live_` and 43 base64url characters. Create one with POST /console/billing/keys; the admin key is printed once when the server first starts.',
  })
  const { $schema: _, ...problemJsonSchema } = z.toJSONSchema(problemSchema)
  registry.registerComponent('schemas', 'Problem', problemJsonSchema as { type: 'object' })
  registry.registerComponent(
    'headers',
    'RateLimit-Limit',
    integerHeader(
      "Requests allowed in the organization's current window: the per-minute or the per-day limit, whichever has less room left",
    ),
  )
  registry.registerComponent(
    'headers',
    'RateLimit-Remaining',
    integerHeader('Requests left in that window after this one'),
  )
  registry.registerComponent(
    'headers',
    'RateLimit-Reset',
    integerHeader('Seconds until that window has room again'),
  )
  registry.registerComponent('headers', 'Retry-After', integerHeader('Seconds to wait before retrying'))
  registry.registerComponent('headers', 'X-Request-Id', {
    description:
      "The request's id: the caller's `X-Request-Id` when it is 1-128 letters, digits, `_`, `-` or `=`, else a new UUID. The server's log line of the request carries it, and so does `request_id` in problem details",
    required: true,
    schema: { type: 'string', pattern: '^[A-Za-z0-9_=-]{1,128}$' },
  })
}
