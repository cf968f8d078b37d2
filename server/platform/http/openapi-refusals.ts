import {
  ERROR_STATUS,
  ERROR_TITLE,
  type ErrorCode,
  problemType,
  type Reason,
} from '../../../src/contract/errors.js'

/*
 * The standard refusals of the OpenAPI document: what each status means, the problem document it
 * carries as an example, and the headers that come with it. `defineRoute` adds them to each route.
 */

export const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` })

/** Every response of the app carries its request id. */
export const requestIdHeader = { 'X-Request-Id': headerRef('X-Request-Id') }

/** Every response given after authentication carries these (the limit with less room left). */
export const rateLimitHeaders = {
  'RateLimit-Limit': headerRef('RateLimit-Limit'),
  'RateLimit-Remaining': headerRef('RateLimit-Remaining'),
  'RateLimit-Reset': headerRef('RateLimit-Reset'),
}

/** What each refusal means, and an example of its problem document. */
const REFUSALS: Record<
  number,
  { description: string; code: ErrorCode; detail: string; reason: Reason; context: Record<string, unknown> }
> = {
  400: {
    description:
      'invalid_request: a body, query or path field fails validation (each one in `errors`), or the body is not JSON',
    code: 'invalid_request',
    detail: 'Invalid body: name: Invalid input: expected string, received number',
    reason: 'invalid_field',
    context: { where: 'body' },
  },
  401: {
    description: 'unauthenticated: the API key is missing, malformed, unknown or revoked',
    code: 'unauthenticated',
    detail: 'Missing X-API-Key header: pass an API key (rwa_live_...)',
    reason: 'key_missing',
    context: {},
  },
  403: {
    description:
      "forbidden (the key may not act on that organization, or an admin-only call), plan_required (governance on the free tier without an active trial) or quota_exceeded (a tier's max_dids or max_skills)",
    code: 'forbidden',
    detail: 'This API key belongs to organization acme and cannot act on globex',
    reason: 'other_organization',
    context: { org_id: 'globex', key_org_id: 'acme' },
  },
  404: {
    description: "not_found: no such record (another organization's ids included)",
    code: 'not_found',
    detail: 'No credential with id cred_01JD2N5X8Q4M7R2T9V3W6Y0Z1A',
    reason: 'credential_not_found',
    context: { credential_id: 'cred_01JD2N5X8Q4M7R2T9V3W6Y0Z1A' },
  },
  409: {
    description: 'conflict: a duplicate, already revoked, still in use, or more than the sender holds',
    code: 'conflict',
    detail: 'Jurisdiction US already exists',
    reason: 'jurisdiction_exists',
    context: { jurisdiction_id: 'US' },
  },
  413: {
    description: 'payload_too_large: the body is over 1 MiB',
    code: 'payload_too_large',
    detail: 'Request body exceeds 1048576 bytes (1 MiB)',
    reason: 'payload_too_large',
    context: { max_bytes: 1048576 },
  },
  415: {
    description: 'unsupported_media_type: a body sent without `Content-Type: application/json`',
    code: 'unsupported_media_type',
    detail: 'Send the request body as JSON with Content-Type: application/json',
    reason: 'json_required',
    context: {},
  },
  422: {
    description: 'unprocessable: well-formed, but not allowed by the rules',
    code: 'unprocessable',
    detail: 'Jurisdiction SG does not accept PropertyOwnership credentials',
    reason: 'credential_type_not_accepted',
    context: {
      jurisdiction_id: 'SG',
      credential_type: 'PropertyOwnership',
      accepted: ['RegulatoryAttestation'],
    },
  },
  429: {
    description:
      "rate_limited: the organization's per-minute or per-day limit is reached, or (`public_rate_limited`) this client address sent more requests without a valid API key than its bucket allows; retry after `Retry-After` seconds",
    code: 'rate_limited',
    detail:
      'Rate limit of 60 requests per minute reached for organization acme; retry in 12 s or move to a higher tier',
    reason: 'rate_limited',
    context: { org_id: 'acme', window: 'minute', limit: 60, retry_after_seconds: 12 },
  },
  503: {
    description:
      'unavailable: a service the request needs cannot be reached; retry after `Retry-After` seconds',
    code: 'unavailable',
    detail: "Stripe's API could not be reached to process evt_1QxYz; retry later",
    reason: 'payment_provider_unreachable',
    context: { event_id: 'evt_1QxYz' },
  },
}

/** The 429 of a route without a key: the per-client bucket (README.md, "Configuration"). */
const PUBLIC_RATE_LIMITED = {
  description:
    'public_rate_limited: this client address made more requests without a valid API key than its bucket allows (`--public-rate-limit`, default 20/s in bursts of 100); retry after `Retry-After` seconds',
  code: 'rate_limited',
  detail: 'Too many requests from 203.0.113.7 without a valid API key (20/s, bursts of 100); retry in 1 s',
  reason: 'public_rate_limited',
  context: { per_second: 20, burst: 100, retry_after_seconds: 1 },
} as const

/**
 * A problem-details response, with the request id. On a limited route, after authentication (every
 * status but 401, and 413, which is refused before the key is read) it carries the RateLimit headers;
 * 429 and 503 also carry Retry-After.
 */
export function problemResponse(status: number, limited: boolean) {
  // A route without a key is limited per client address, not per organization.
  const refusal = status === 429 && !limited ? PUBLIC_RATE_LIMITED : REFUSALS[status]
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
    reason: refusal.reason,
    context: refusal.context,
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
