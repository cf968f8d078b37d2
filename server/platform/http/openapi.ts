import { createRoute, type OpenAPIHono, type RouteConfig } from '@hono/zod-openapi'
import type { Env } from 'hono'
import { z } from 'zod'
import { ERROR_STATUS, problemSchema, REASONS, type Reason } from '../../../src/contract/errors.js'
import {
  type BodySpec,
  type HeaderParameter,
  IDEMPOTENCY_HEADER,
  isLimited,
  type OperationSpec,
  REPLAYED_HEADER,
  standardReasons,
  takesIdempotencyKey,
} from '../../../src/contract/operation.js'
import { problemResponse, rateLimitHeaders, requestIdHeader } from './openapi-refusals.js'

/*
 * The OpenAPI side of every operation. `routeOf` takes an operation's declaration (src/contract/*-routes.ts)
 * and adds what follows from whether it takes an API key and a body: the security requirement, the
 * RateLimit headers, and the refusals (400; 401/429 with a key; 403 for governance and admin; 413/415
 * with a body; those its own reasons give), each listing the reasons it can carry.
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

/** Name of the API-key security scheme in `components.securitySchemes`. */
export const API_KEY_SCHEME = 'ApiKey'

/** A query with no parameters: unknown ones are refused like unknown body fields. */
const noQuery = z.strictObject({})

/** The statuses and reasons a refusal of the operation can carry, by status. */
export function refusalsByStatus(operation: OperationSpec): Map<number, Reason[]> {
  const byStatus = new Map<number, Reason[]>()
  for (const reason of [...standardReasons(operation), ...(operation.refusals ?? [])]) {
    const status = ERROR_STATUS[REASONS[reason].code]
    const reasons = byStatus.get(status) ?? []
    if (!reasons.includes(reason)) reasons.push(reason)
    byStatus.set(status, reasons)
  }
  return byStatus
}

/**
 * The OpenAPI route of a declared operation, with everything that follows from its `access` and body:
 * the API-key security requirement (none for public routes), RateLimit headers on every answer given
 * after authentication, and the refusals its reasons give, each listing its reasons (`x-reasons`). A
 * route without a query schema refuses any query parameter (400).
 */
export function routeOf(operation: OperationSpec) {
  const { access, response, otherResponses = {}, body } = operation
  const keyed = access !== 'public'
  // Limits and metering apply to `key`, `admin` and `governance`: their answers carry the RateLimit headers.
  const limited = isLimited(access)
  const withHeaders = <R extends object>(answer: R) => ({
    ...answer,
    headers: { ...(limited ? rateLimitHeaders : {}), ...requestIdHeader },
  })
  const main: Record<number, object> = {
    [response.status]: withHeaders({
      content: {
        [response.mediaType ?? 'application/json']: { schema: response.schema, example: response.example },
      },
      description: response.description,
    }),
  }
  for (const [status, other] of Object.entries(otherResponses)) main[Number(status)] = withHeaders(other)
  const refusals = refusalsByStatus(operation)
  const standard = Object.fromEntries(
    [...refusals.keys()]
      .sort()
      .map((status) => [status, { ...problemResponse(status, limited), 'x-reasons': refusals.get(status) }]),
  )
  const request: Record<string, unknown> = {}
  if (operation.params) request.params = operation.params
  request.query = operation.query ?? noQuery
  if (body) request.body = { content: { 'application/json': requestContent(body) }, required: body.required }
  const headers = [
    ...(operation.headers ?? []),
    ...(takesIdempotencyKey(operation) ? [idempotencyKeyHeader] : []),
  ]
  if (takesIdempotencyKey(operation)) {
    for (const answer of Object.values(main)) {
      const withReplay = answer as { headers: Record<string, unknown> }
      withReplay.headers = { ...withReplay.headers, [REPLAYED_HEADER]: replayedHeader }
    }
  }
  return createRoute({
    method: operation.method,
    path: operation.path,
    operationId: operation.operationId,
    tags: [...operation.tags],
    summary: operation.summary,
    ...(operation.description === undefined ? {} : { description: operation.description }),
    ...(headers.length === 0
      ? {}
      : {
          parameters: headers.map((header) => ({
            name: header.name,
            in: 'header' as const,
            required: header.required,
            description: header.description,
            schema: { type: 'string' as const },
            ...(header.example === undefined ? {} : { example: header.example }),
          })),
        }),
    request,
    security: keyed ? [{ [API_KEY_SCHEME]: [] }] : [],
    responses: { ...standard, ...main },
  } as RouteConfig)
}

/**
 * A body's media type object. A raw body (read as text by its handler) is documented from the JSON
 * Schema of its zod schema, with unknown fields allowed, so nothing validates it before the handler.
 */
function requestContent(body: BodySpec) {
  if (!body.raw) return { schema: body.schema, example: body.example }
  const { $schema: _, ...json } = z.toJSONSchema(body.schema, { io: 'input' })
  return { schema: { ...json, additionalProperties: true } as { type: 'object' }, example: body.example }
}

/** The `Idempotency-Key` every keyed POST takes (docs/accountability.md, "Retrying a write safely"). */
const idempotencyKeyHeader: HeaderParameter = {
  name: IDEMPOTENCY_HEADER,
  required: false,
  description:
    'Makes the request safe to retry: for 24 h, the same key with the same method, path and body replays the first answer byte for byte (with `Idempotent-Replayed: true`); with another body it is 422 `idempotency_key_reused`, while the first still runs 409 `idempotency_key_in_progress`. 1–255 printable ASCII characters; a UUID is a good choice.',
  example: '5f0c2b9e-8a43-4e55-9a57-1f0b8c2d9e11',
}

const replayedHeader = {
  description: '`true` when the answer is the replay of an earlier request with the same `Idempotency-Key`',
  required: false,
  schema: { type: 'string' as const, enum: ['true'] },
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
      "Requests allowed in the organization's current window: the per-minute or the per-day limit, whichever has less room left (on a 429 `public_rate_limited`, the size of the client address's bucket)",
    ),
  )
  registry.registerComponent(
    'headers',
    'RateLimit-Remaining',
    integerHeader('Requests left in that window after this one (0 on a 429 `public_rate_limited`)'),
  )
  registry.registerComponent(
    'headers',
    'RateLimit-Reset',
    integerHeader("Seconds until that window (or the client address's bucket) has room again"),
  )
  registry.registerComponent('headers', 'Retry-After', integerHeader('Seconds to wait before retrying'))
  registry.registerComponent('headers', 'X-Request-Id', {
    description:
      "The request's id: the caller's `X-Request-Id` when it is 1-128 letters, digits, `_`, `-` or `=`, else a new UUID. The server's log line of the request carries it, and so does `request_id` in problem details",
    required: true,
    schema: { type: 'string', pattern: '^[A-Za-z0-9_=-]{1,128}$' },
  })
}
