import { createRoute, type OpenAPIHono, type RouteConfig } from '@hono/zod-openapi'
import type { Env } from 'hono'
import { type ZodType, z } from 'zod'
import {
  ERROR_STATUS,
  ERROR_TITLE,
  type ErrorCode,
  problemSchema,
  problemType,
} from '../../src/contract/errors.js'

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

const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` })

/** Every response of the app carries its request id. */
const requestIdHeader = { 'X-Request-Id': headerRef('X-Request-Id') }

/** Every response given after authentication carries these (the limit with less room left). */
const rateLimitHeaders = {
  'RateLimit-Limit': headerRef('RateLimit-Limit'),
  'RateLimit-Remaining': headerRef('RateLimit-Remaining'),
  'RateLimit-Reset': headerRef('RateLimit-Reset'),
}

/** What each refusal means, and an example of its problem document. */
const REFUSALS: Record<number, { description: string; code: ErrorCode; detail: string }> = {
  400: {
    description:
      'invalid_request: a body, query or path field fails validation (each one in `errors`), or the body is not JSON',
    code: 'invalid_request',
    detail: 'Invalid body: name: Invalid input: expected string, received number',
  },
  401: {
    description: 'unauthenticated: the API key is missing, malformed, unknown or revoked',
    code: 'unauthenticated',
    detail: 'Missing X-API-Key header: pass an API key (rwa_live_...)',
  },
  403: {
    description:
      "forbidden (the key may not act on that organization, or an admin-only call), plan_required (governance on the free tier without an active trial) or quota_exceeded (a tier's max_dids or max_skills)",
    code: 'forbidden',
    detail: 'This API key belongs to organization acme and cannot act on globex',
  },
  404: {
    description: "not_found: no such record (another organization's ids included)",
    code: 'not_found',
    detail: 'No credential with id cred_01JD2N5X8Q4M7R2T9V3W6Y0Z1A',
  },
  409: {
    description: 'conflict: a duplicate, already revoked, still in use, or more than the sender holds',
    code: 'conflict',
    detail: 'Jurisdiction US already exists',
  },
  413: {
    description: 'payload_too_large: the body is over 1 MiB',
    code: 'payload_too_large',
    detail: 'Request body exceeds 1048576 bytes (1 MiB)',
  },
  415: {
    description: 'unsupported_media_type: a body sent without `Content-Type: application/json`',
    code: 'unsupported_media_type',
    detail: 'Send the request body as JSON with Content-Type: application/json',
  },
  422: {
    description: 'unprocessable: well-formed, but not allowed by the rules',
    code: 'unprocessable',
    detail: 'Jurisdiction SG does not accept PropertyOwnership credentials',
  },
  429: {
    description:
      'rate_limited: the per-minute or per-day limit is reached; retry after `Retry-After` seconds',
    code: 'rate_limited',
    detail:
      'Rate limit of 60 requests per minute reached for organization acme; retry in 12 s or move to a higher tier',
  },
  503: {
    description:
      'unavailable: a service the request needs cannot be reached; retry after `Retry-After` seconds',
    code: 'unavailable',
    detail: "Stripe's API could not be reached to process evt_1QxYz; retry later",
  },
}

/**
 * A problem-details response, with the request id. On a limited route, after authentication (every
 * status but 401, and 413, which is refused before the key is read) it carries the RateLimit headers;
 * 429 and 503 also carry Retry-After.
 */
function problemResponse(status: number, limited: boolean) {
  const refusal = REFUSALS[status]
  if (!refusal) throw new Error(`No standard refusal for status ${status}`)
  const headers: Record<string, { $ref: string }> =
    limited && status !== 401 && status !== 413 ? { ...rateLimitHeaders } : {}
  if (status === 429 || status === 503) headers['Retry-After'] = headerRef('Retry-After')
  Object.assign(headers, requestIdHeader)
  const example = {
    type: problemType(refusal.code),
    title: ERROR_TITLE[refusal.code],
    status: ERROR_STATUS[refusal.code],
    detail: refusal.detail,
    code: refusal.code,
    ...(status === 400
      ? { errors: [{ path: 'name', message: 'Invalid input: expected string, received number' }] }
      : {}),
  }
  return {
    description: refusal.description,
    ...(Object.keys(headers).length > 0 ? { headers } : {}),
    content: {
      'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' }, example },
    },
  }
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
