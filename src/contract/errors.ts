import { z } from 'zod'

/** Every error code the API answers with, and the HTTP status each one always carries. */
export const ERROR_STATUS = {
  invalid_request: 400,
  unauthenticated: 401,
  forbidden: 403,
  plan_required: 403,
  quota_exceeded: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  unprocessable: 422,
  rate_limited: 429,
  internal: 500,
  unavailable: 503,
} as const

export type ErrorCode = keyof typeof ERROR_STATUS

export const errorCodeSchema = z.enum(Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]])

/** Short human titles, one per code (the `title` member of a problem document). */
export const ERROR_TITLE: Record<ErrorCode, string> = {
  invalid_request: 'Invalid request',
  unauthenticated: 'Authentication required',
  forbidden: 'Forbidden',
  plan_required: 'Plan required',
  quota_exceeded: 'Quota exceeded',
  not_found: 'Not found',
  method_not_allowed: 'Method not allowed',
  conflict: 'Conflict',
  payload_too_large: 'Payload too large',
  unsupported_media_type: 'Unsupported media type',
  unprocessable: 'Unprocessable request',
  rate_limited: 'Rate limit exceeded',
  internal: 'Internal error',
  unavailable: 'Service unavailable',
}

/**
 * Every refusal's stable reason: what a program branches on (the CLI's hints and exit codes, a
 * client's retry logic), while `detail` is prose for people and may change. Each reason belongs to one
 * code, so it also fixes the HTTP status. `when` says when it happens; docs/errors.md is generated from
 * this table (test/contract/errors-doc.test.ts keeps it so). A route declares the reasons its own
 * rules give (`refusals` in its declaration); the ones that follow from its access and body are added
 * for it (`standardReasons` in ./operation.ts).
 */
export const REASONS = {
  // 400
  invalid_field: {
    code: 'invalid_request',
    when: 'A body, query or path value fails its schema; `errors` names each field and `context.where` says which part',
  },
  malformed_body: {
    code: 'invalid_request',
    when: 'The body is not JSON, or the request itself is malformed',
  },
  invalid_cursor: { code: 'invalid_request', when: 'The `cursor` is not one this list returned' },
  missing_signature: {
    code: 'invalid_request',
    when: 'A payment-provider event without its signature header',
  },
  signature_invalid: {
    code: 'invalid_request',
    when: 'A payment-provider event whose signature does not verify (or is outside the tolerance)',
  },
  org_id_required: {
    code: 'invalid_request',
    when: 'The admin key creates a key without `org_id` (`org_id: "admin"` makes another admin key)',
  },
  // 401
  key_missing: { code: 'unauthenticated', when: 'No `X-API-Key` header' },
  key_malformed: {
    code: 'unauthenticated',
    when: 'The key does not have the format `rwa_live_` + 43 characters',
  },
  key_unknown: { code: 'unauthenticated', when: 'No key with that value exists' },
  key_revoked: {
    code: 'unauthenticated',
    when: 'The key was revoked, or rerolled and its overlap has ended (`context.revoked_reason`)',
  },
  key_expired: { code: 'unauthenticated', when: 'The key is past its `expires_at` (`context.expired_at`)' },
  session_ended: {
    code: 'unauthenticated',
    when: "A console session cookie that names no live session: signed out, past its 8 hours, or never made (docs/console.md); sign in again. The session's key refuses with its own reasons",
  },
  // 403
  other_organization: {
    code: 'forbidden',
    when: 'A member key names another organization (`context.org_id`)',
  },
  admin_key_required: { code: 'forbidden', when: 'The operation is for the admin key only' },
  csrf_token_invalid: {
    code: 'forbidden',
    when: 'A write through a console session without the session\'s CSRF token in `X-CSRF-Token` (docs/console.md, "Security model")',
  },
  role_required: {
    code: 'forbidden',
    when: "The key's roles do not include one the operation needs (`context.roles` names those that would do, `context.key_roles` the key's)",
  },
  approval_requires_another_key: {
    code: 'forbidden',
    when: 'Approving an approval with the key that requested it, or a key rerolled from it or it from (one principal): four eyes need another key',
  },
  plan_required: {
    code: 'plan_required',
    when: 'A governance call by an organization on the free tier with no active trial',
  },
  max_dids: { code: 'quota_exceeded', when: "A credential would add a DID past the tier's `max_dids`" },
  max_skills: {
    code: 'quota_exceeded',
    when: "A tokenize would register a skill (a tokenized asset) past the tier's `max_skills`",
  },
  // 404
  route_not_found: { code: 'not_found', when: 'No operation has that path, with any method' },
  // 405
  method_not_allowed: {
    code: 'method_not_allowed',
    when: "The path is an operation's but the method is not; `Allow` (and `context.allow`) lists the methods it has",
  },
  organization_not_found: { code: 'not_found', when: 'No organization of that id has a record yet' },
  key_not_found: { code: 'not_found', when: "No API key of that id in the caller's organization" },
  jurisdiction_not_found: {
    code: 'not_found',
    when: "No jurisdiction of that id in the caller's organization",
  },
  trust_not_found: { code: 'not_found', when: 'No active trust relation between the two jurisdictions' },
  credential_not_found: { code: 'not_found', when: "No credential of that id in the caller's organization" },
  attestation_not_found: {
    code: 'not_found',
    when: "No attestation of that id in the caller's organization",
  },
  issuer_not_found: { code: 'not_found', when: "No trusted issuer of that id in the caller's organization" },
  identity_not_found: { code: 'not_found', when: "No identity of that id in the caller's organization" },
  token_not_found: { code: 'not_found', when: "No token of that id in the caller's organization" },
  transfer_not_found: { code: 'not_found', when: "No transfer of that id in the caller's organization" },
  proof_not_found: { code: 'not_found', when: "No proof of that id in the caller's organization" },
  approval_not_found: { code: 'not_found', when: "No approval of that id in the caller's organization" },
  status_list_not_found: { code: 'not_found', when: 'No status list of that id' },
  holding_not_found: { code: 'not_found', when: 'The holder holds none of the token in that jurisdiction' },
  event_not_found: { code: 'not_found', when: "No event of that id in the caller's organization" },
  webhook_not_found: {
    code: 'not_found',
    when: "No webhook endpoint of that id in the caller's organization",
  },
  delivery_not_found: { code: 'not_found', when: 'No delivery of that id to that webhook endpoint' },
  payment_webhook_disabled: {
    code: 'not_found',
    when: 'The payment webhook is called on a server running the local payment provider',
  },
  // 409
  key_already_revoked: { code: 'conflict', when: 'The key is revoked already (revocation is permanent)' },
  last_admin_key: {
    code: 'conflict',
    when: 'Revoking the last active admin key, or rerolling it with an overlap under 300 s (`context.min_overlap_seconds`: a lost answer would leave no admin key)',
  },
  key_already_rerolled: {
    code: 'conflict',
    when: 'Rerolling a key rerolled already (`context.replaced_by` is its successor; reroll that one)',
  },
  key_already_expired: { code: 'conflict', when: 'Rerolling a key past its `expires_at`' },
  jurisdiction_exists: { code: 'conflict', when: 'A jurisdiction with that id is already registered' },
  issuer_exists: {
    code: 'conflict',
    when: 'A trusted issuer with that id is registered already (a removed one keeps its id)',
  },
  identity_exists: { code: 'conflict', when: 'An identity with that id exists already' },
  did_in_use: {
    code: 'conflict',
    when: 'A DID is in another identity of the organization already (`context.did`, `context.identity_id`)',
  },
  issuer_removed: { code: 'conflict', when: 'Changing or refreshing a trusted issuer that was removed' },
  jurisdiction_in_use: {
    code: 'conflict',
    when: 'Removing a jurisdiction that credentials, attestations, tokens or active trust still refer to (`context` counts them)',
  },
  trust_exists: {
    code: 'conflict',
    when: 'Trust between the two jurisdictions is already active (`context.trust_id`)',
  },
  credential_already_revoked: { code: 'conflict', when: 'The credential is revoked already' },
  credential_revoked: { code: 'conflict', when: 'Tokenizing a revoked credential' },
  credential_expired: { code: 'conflict', when: 'Tokenizing a credential past its `valid_until`' },
  credential_already_tokenized: {
    code: 'conflict',
    when: 'The credential is tokenized already (`context.token_id`)',
  },
  token_frozen: {
    code: 'conflict',
    when: 'Pausing or unpausing a token frozen for good by its revoked credential',
  },
  token_already_paused: { code: 'conflict', when: 'Pausing a paused token' },
  token_not_paused: { code: 'conflict', when: 'Unpausing a token that is not paused' },
  holder_already_frozen: { code: 'conflict', when: 'Freezing a holder frozen already' },
  holder_not_frozen: { code: 'conflict', when: 'Unfreezing a holder that is not frozen' },
  frozen_units_exceed_holding: {
    code: 'conflict',
    when: 'Freezing more units than the holding has unfrozen',
  },
  frozen_units_insufficient: { code: 'conflict', when: 'Unfreezing more units than are frozen' },
  insufficient_holding: {
    code: 'conflict',
    when: 'Moving more units than the sender holds in that jurisdiction (nothing is recorded)',
  },
  nothing_to_recover: { code: 'conflict', when: 'Recovering an identity that holds none of the token' },
  webhook_endpoint_limit: {
    code: 'conflict',
    when: 'Creating a webhook endpoint, or enabling a disabled one again by retrying its delivery, when the organization has 16 enabled endpoints (`context.max_enabled`); delete one first',
  },
  concurrent_duplicate: { code: 'conflict', when: 'A concurrent request created the same thing first' },
  concurrent_removal: { code: 'conflict', when: 'A concurrent request removed something this one refers to' },
  title_deed_in_use: {
    code: 'conflict',
    when: 'Issuing a credential for a title deed an active credential of the jurisdiction already has (compared trimmed, case-insensitive; `context.credential_id` names it)',
  },
  attestation_already_revoked: { code: 'conflict', when: 'The attestation is revoked already' },
  attestation_exists: {
    code: 'conflict',
    when: "A trusted issuer's VC-JWT submitted already (`context.attestation_id` names its attestation)",
  },
  attestation_external: {
    code: 'conflict',
    when: "Revoking a trusted issuer's attestation: its issuer revokes it, in its own status list",
  },
  approval_not_pending: {
    code: 'conflict',
    when: 'Approving or rejecting an approval decided already (`context.status`: approved, rejected or failed)',
  },
  approval_requester_revoked: {
    code: 'conflict',
    when: 'Approving or rejecting an approval whose requesting key has been revoked or has expired since (the approval reads `cancelled`): it can no longer run',
  },
  approval_expired: {
    code: 'conflict',
    when: 'Approving or rejecting an approval pending past its `expires_at` (72 h): it can no longer run; request the operation again',
  },
  idempotency_key_in_progress: {
    code: 'conflict',
    when: 'A request with the same `Idempotency-Key` is still running; retry once it has answered',
  },
  // 413, 415
  payload_too_large: { code: 'payload_too_large', when: 'The body is over 1 MiB' },
  json_required: {
    code: 'unsupported_media_type',
    when: 'A body sent with a Content-Type other than `application/json`',
  },
  // 422
  credential_type_not_accepted: {
    code: 'unprocessable',
    when: 'The jurisdiction does not accept that credential type (`context.accepted`)',
  },
  issuer_unresolvable: {
    code: 'unprocessable',
    when: "An issuer's DID cannot be resolved to an Ed25519 key: a did:web document that cannot be fetched (or only from an address the policy refuses, or over http without --allow-http-issuers), is not a DID document of that DID, or lists no Ed25519 key (`context.reason`)",
  },
  credential_refused: {
    code: 'unprocessable',
    when: "A trusted issuer's VC-JWT that does not verify now; `context.reason` says why: issuer_not_trusted, issuer_not_trusted_for_type, issuer_suspended, signature_invalid, credential_not_yet_valid, credential_expired, credential_revoked, credential_suspended, status_unavailable or credential_malformed",
  },
  webhook_url_refused: {
    code: 'unprocessable',
    when: 'A webhook URL that is not https, or whose host is (or resolves to) a loopback, private, link-local, unique-local or metadata address (`context.reason`); loopback http is allowed only when the server runs with --allow-http-webhooks',
  },
  log_size_exceeded: {
    code: 'unprocessable',
    when: "A log proof names a tree size beyond the organization's log (`context.log_size`)",
  },
  valid_until_not_future: { code: 'unprocessable', when: '`valid_until` is not in the future' },
  expires_at_not_future: { code: 'unprocessable', when: "A key's `expires_at` is not in the future" },
  idempotency_key_reused: {
    code: 'unprocessable',
    when: 'The `Idempotency-Key` was sent in the last 24 h with another method, path or body',
  },
  unknown_requirement: {
    code: 'unprocessable',
    when: "An attestation's `type` is neither a known requirement nor one a jurisdiction lists; a trusted issuer's requirement is not one a jurisdiction of the organization lists",
  },
  same_holding: {
    code: 'unprocessable',
    when: 'A forced transfer from a holding to itself (same holder and jurisdiction): it would move nothing, only unfreeze its frozen units',
  },
  recipient_not_kyc: {
    code: 'unprocessable',
    when: 'A forced transfer or recovery whose recipient holds no valid `kyc` attestation recognised where the units go',
  },
  batch_operation_failed: {
    code: 'unprocessable',
    when: 'An operation of an atomic batch failed, so none was kept: `context` names its `index`, `ref` and `op`, and `operation_problem` is its own problem',
  },
  admin_not_billed: {
    code: 'unprocessable',
    when: 'A subscription change for the operator organization `admin`',
  },
  // 429
  rate_limited: {
    code: 'rate_limited',
    when: "The organization's per-minute or per-day limit is reached (`context.window`, `context.limit`); `Retry-After` says when to retry",
  },
  public_rate_limited: {
    code: 'rate_limited',
    when: 'Too many requests that do not authenticate (no API key, a malformed one, one unknown, revoked or expired, or any request no route answers, whatever key it carries) from one client address (`--public-rate-limit`, default 20/s in bursts of 100; `context.per_second`, `context.burst`); `Retry-After` says when to retry, and a client that comes back sooner is answered only then',
  },
  // 500, 503
  internal: { code: 'internal', when: 'A bug: the server logged the details under the request id' },
  starting: { code: 'unavailable', when: 'The server is still starting' },
  not_ready: { code: 'unavailable', when: '`/readyz`: a check failed (`checks` names it)' },
  database_unavailable: {
    code: 'unavailable',
    when: 'The database cannot be reached, stayed locked past its timeout, or rolled the write back to break a lock conflict with a concurrent one (nothing written); `Retry-After` says when to try again',
  },
  payment_provider_unreachable: {
    code: 'unavailable',
    when: "The payment provider's API could not be reached to process an event; it will redeliver",
  },
} as const satisfies Record<string, { code: ErrorCode; when: string }>

export type Reason = keyof typeof REASONS

export const reasonSchema = z
  .enum(Object.keys(REASONS) as [Reason, ...Reason[]])
  .describe(
    'Stable machine-readable reason of the refusal (docs/errors.md lists each); branch on it, not on `detail`',
  )

/** The `type` URI of a problem document for a code. */
export const problemType = (code: ErrorCode): string => `urn:rwa:problem:${code}`

export const fieldErrorSchema = z.object({
  path: z.string().describe('Dotted path of the failing field, e.g. `property_data.value_usd`'),
  message: z.string(),
})

/** The members of a problem document. */
const problemFields = {
  type: z.string(),
  title: z.string(),
  status: z.number().int(),
  detail: z.string(),
  code: errorCodeSchema,
  reason: reasonSchema,
  context: z
    .record(z.string(), z.unknown())
    .describe('The ids and values the refusal is about, e.g. `{ "token_id": "tok_..." }`; `{}` when none'),
  errors: z.array(fieldErrorSchema).optional(),
  request_id: z
    .string()
    .optional()
    .describe(
      'The `X-Request-Id` of the request that failed (also in the response header): the server log line of the request carries it',
    ),
}

/** RFC 9457 problem details, as every error response carries them (`application/problem+json`). */
export const problemSchema = z.object({
  ...problemFields,
  operation_problem: z
    .object(problemFields)
    .optional()
    .describe(
      '`batch_operation_failed`: the problem of the operation that failed, as it alone would have had it',
    ),
})

export type FieldError = z.infer<typeof fieldErrorSchema>
export type Problem = z.infer<typeof problemSchema>
