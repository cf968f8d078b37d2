import { logIndexField } from './audit.js'
import { logKeySchema } from './audit-log.js'
import { z } from 'zod'
import { pageFields, pageQuery, prefixedId, timestampSchema } from './common.js'
import { issuerKeySchema, issuerStatusSchema } from './issuer-keys.js'
import { investorRulesRequestShape, investorRulesShape, NO_INVESTOR_RULES } from './investor-rules.js'

/*
 * Governance (/console/rwa/): jurisdictions, trust, credentials, attestations, tokens, transfers and
 * compliance proofs. Request schemas are strict (unknown fields are refused); response schemas describe
 * exactly what the server sends. The rules behind each field are in docs/governance.md.
 */

// ── Shared pieces ───────────────────────────────────────────────────────────

/** The credential types the service knows how to issue. */
export const PROPERTY_OWNERSHIP = 'PropertyOwnership'
export const REGULATORY_ATTESTATION = 'RegulatoryAttestation'

/** The requirement names the spec shows; a jurisdiction may list any other name too. */
export const KNOWN_REQUIREMENTS = ['kyc', 'aml', 'title_verification', 'investor_qualification'] as const

/** The requirement whose subject is the token's credential rather than the recipient. */
export const TITLE_VERIFICATION = 'title_verification'

/** Paths below /console/rwa/jurisdictions/ that are not jurisdiction ids. */
const RESERVED_JURISDICTION_IDS = new Set(['trust'])

/** A jurisdiction's short code, e.g. `US`, `SG`, `us-ca`: its id within the organization. */
export const jurisdictionIdSchema = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$/,
    'expected a short code: letters, digits, "_" or "-", starting with a letter or digit (max 32)',
  )
  .refine((id) => !RESERVED_JURISDICTION_IDS.has(id.toLowerCase()), '"trust" is reserved')
  .describe('Short code of the jurisdiction, e.g. `US`')

/** A requirement name such as `kyc`: lower-case letters, digits and `_`. */
export const requirementNameSchema = z
  .string()
  .regex(/^[a-z][a-z0-9_]{0,63}$/, 'expected a lower-case name of letters, digits and "_" (max 64)')

/** A credential type name such as `PropertyOwnership`. */
export const credentialTypeSchema = z
  .string()
  .regex(/^[A-Za-z][A-Za-z0-9]{0,63}$/, 'expected a type name of letters and digits (max 64)')

/** Any DID: `did:<method>:<method-specific id>`. */
export const didSchema = z
  .string()
  .max(512)
  .regex(/^did:[a-z0-9]+:[A-Za-z0-9._%:-]*[A-Za-z0-9._%-]$/, 'expected a DID, e.g. did:web:acme:alice')

/** An owner DID of the shape the spec gives: `did:<method>:<organization>:<owner>`. */
export const ownerDidSchema = z
  .string()
  .max(512)
  .regex(
    /^did:[a-z0-9]+:[A-Za-z0-9._%-]+:[A-Za-z0-9._%-]+$/,
    'expected did:<method>:<organization>:<owner>, e.g. did:web:acme:alice',
  )

/** A list without repeated entries. */
const uniqueList = <T extends z.ZodType<string>>(item: T, max: number) =>
  z
    .array(item)
    .max(max)
    .refine((list) => new Set(list).size === list.length, 'entries must not repeat')

const text = (max: number) => z.string().trim().min(1).max(max)

export const credentialIdSchema = prefixedId('cred')
export const attestationIdSchema = prefixedId('att')
export const tokenIdSchema = prefixedId('tok')
export const transferIdSchema = prefixedId('tx')
export const proofIdSchema = prefixedId('prf')
export const trustIdSchema = prefixedId('trust')
export const statusListIdSchema = prefixedId('sl')

/** Path parameter `{id}` of a jurisdiction. */
export const jurisdictionParamsSchema = z.object({ id: jurisdictionIdSchema })
export const credentialParamsSchema = z.object({ id: credentialIdSchema })
export const attestationParamsSchema = z.object({ id: attestationIdSchema })
export const tokenParamsSchema = z.object({ id: tokenIdSchema })
export const transferParamsSchema = z.object({ id: transferIdSchema })
export const proofParamsSchema = z.object({ id: proofIdSchema })
export const statusListParamsSchema = z.object({ list_id: statusListIdSchema })

/** A count of whole token units. */
const unitsSchema = z.number().int().positive().max(Number.MAX_SAFE_INTEGER)

/** Why an agent did what it did: kept in the token's history (and in the proof of what moves units). */
const reasonSchema = text(500)

// ── Jurisdictions ───────────────────────────────────────────────────────────

const jurisdictionConfigFields = {
  name: text(200).describe('Display name'),
  regulatory_body: text(200).describe('Name of the regulator'),
  frameworks: uniqueList(text(200), 100).default([]).describe('Regulatory frameworks'),
  credential_types: uniqueList(credentialTypeSchema, 50)
    .default([PROPERTY_OWNERSHIP, REGULATORY_ATTESTATION])
    .describe(
      'Credential types the jurisdiction accepts (default both PropertyOwnership and RegulatoryAttestation)',
    ),
  transfer_requirements: uniqueList(requirementNameSchema, 50)
    .default([])
    .describe('Requirements a transfer out of or into the jurisdiction must satisfy, e.g. `kyc`'),
  external_only: uniqueList(requirementNameSchema, 50)
    .default([])
    .describe(
      "Requirements met only by trusted issuers' attestations (docs/issuers.md), not the organization's own; each one of transfer_requirements",
    ),
}

/** POST /console/rwa/jurisdictions (spec 2.1). */
export const registerJurisdictionRequestSchema = z.strictObject({
  jurisdiction_id: jurisdictionIdSchema,
  ...jurisdictionConfigFields,
})

/** PUT /console/rwa/jurisdictions/{id}: replaces every mutable field (omitted lists take their defaults). */
export const updateJurisdictionRequestSchema = z.strictObject(jurisdictionConfigFields)

export const jurisdictionSchema = z.object({
  jurisdiction_id: z.string(),
  name: z.string(),
  regulatory_body: z.string(),
  frameworks: z.array(z.string()),
  credential_types: z.array(z.string()),
  transfer_requirements: z.array(z.string()),
  external_only: z.array(z.string()).describe("Requirements met only by trusted issuers' attestations"),
  issuer_did: z.string().describe("did:key of the jurisdiction's Ed25519 signing key"),
  created_at: timestampSchema,
  updated_at: timestampSchema,
})

export const listJurisdictionsQuerySchema = z.strictObject({ ...pageQuery('jur') })
export const listJurisdictionsResponseSchema = z.object({
  jurisdictions: z.array(jurisdictionSchema),
  ...pageFields,
})

export const removeJurisdictionResponseSchema = z.object({
  status: z.literal('removed'),
  jurisdiction_id: z.string(),
})

// ── Trust ───────────────────────────────────────────────────────────────────

const trustPairFields = {
  from_jurisdiction: jurisdictionIdSchema.describe('Source: transfers may go from here'),
  to_jurisdiction: jurisdictionIdSchema.describe('Target: recognises attestations issued by the source'),
}

const distinctEnds = (pair: { from_jurisdiction: string; to_jurisdiction: string }) =>
  pair.from_jurisdiction !== pair.to_jurisdiction

/** POST /console/rwa/jurisdictions/trust. */
export const establishTrustRequestSchema = z
  .strictObject({
    ...trustPairFields,
    mutual: z.boolean().default(false).describe('Trust in both directions'),
  })
  .refine(distinctEnds, {
    path: ['to_jurisdiction'],
    message: 'must differ from from_jurisdiction',
  })

/** DELETE /console/rwa/jurisdictions/trust: the pair, in the body or in the query. */
export const trustPairSchema = z
  .strictObject(trustPairFields)
  .refine(distinctEnds, { path: ['to_jurisdiction'], message: 'must differ from from_jurisdiction' })

/** The query form of the trust pair (both fields may instead come in the body). */
export const trustPairQuerySchema = z.strictObject({
  from_jurisdiction: jurisdictionIdSchema.optional(),
  to_jurisdiction: jurisdictionIdSchema.optional(),
})

export const trustStatusSchema = z.enum(['active', 'revoked'])

export const trustRelationSchema = z.object({
  trust_id: trustIdSchema,
  from_jurisdiction: z.string(),
  to_jurisdiction: z.string(),
  mutual: z.boolean(),
  status: trustStatusSchema,
  created_at: timestampSchema,
  revoked_at: timestampSchema.nullable(),
})

export const listTrustQuerySchema = z.strictObject({
  ...pageQuery('trust'),
  status: trustStatusSchema.optional(),
  jurisdiction: jurisdictionIdSchema.optional().describe('Relations with this jurisdiction at either end'),
})
export const listTrustResponseSchema = z.object({
  trust_relations: z.array(trustRelationSchema),
  ...pageFields,
})

export const revokeTrustResponseSchema = z.object({
  status: z.literal('revoked'),
  trust_id: trustIdSchema,
  from_jurisdiction: z.string(),
  to_jurisdiction: z.string(),
  mutual: z.boolean(),
  revoked_at: timestampSchema,
})

// ── Revocation status (W3C Bitstring Status List) ───────────────────────────

/**
 * An entry of the `credentialStatus` of a VC the service signs: its place in one of the issuing
 * jurisdiction's public status lists (W3C Bitstring Status List v1.0). The bit at `statusListIndex` of
 * the list credential at `statusListCredential` is 1 once the credential is revoked (purpose
 * `revocation`), or while it is suspended (purpose `suspension`).
 */
export const credentialStatusEntrySchema = z.object({
  id: z.string().describe('`<statusListCredential>#<statusListIndex>`'),
  type: z.literal('BitstringStatusListEntry'),
  statusPurpose: z.enum(['revocation', 'suspension']),
  statusListIndex: z
    .string()
    .regex(/^(0|[1-9][0-9]*)$/)
    .describe('Position of the bit, a decimal string'),
  statusListCredential: z.string().describe('URL of the status list credential (served without a key)'),
})

/**
 * The `credentialStatus` as signed: one revocation entry (what was issued before suspension lists), or
 * a revocation entry then a suspension entry at the same index of the sibling list (docs/governance.md,
 * "Suspension").
 */
export const signedCredentialStatusSchema = z.union([
  credentialStatusEntrySchema,
  z.array(credentialStatusEntrySchema).min(1).max(2),
])

// ── Credentials ─────────────────────────────────────────────────────────────

export const propertyDataSchema = z.strictObject({
  address: text(500).describe('Location of the property'),
  type: text(100).describe('Kind of property (a category word), e.g. `commercial`'),
  value_usd: z.number().positive().max(1e15).describe('Value in US dollars'),
  title_deed: text(200).describe('Title deed reference'),
})

/**
 * A title deed as compared for uniqueness (docs/verification.md, "One property, one live credential"):
 * trimmed, Unicode NFC, lower case. Within an organization, an active credential's (jurisdiction, title deed
 * key) is unique.
 */
export const titleDeedKey = (titleDeed: string): string => titleDeed.trim().normalize('NFC').toLowerCase()

/** POST /console/rwa/credentials (spec 2.2). */
export const issueCredentialRequestSchema = z.strictObject({
  jurisdiction: jurisdictionIdSchema.describe('jurisdiction_id of the issuing jurisdiction'),
  owner_did: ownerDidSchema,
  property_data: propertyDataSchema,
  valid_until: timestampSchema.optional().describe('End of validity; none means valid until revoked'),
})

/** A record's status: `suspended` while suspended (until reinstated), `revoked` for good. */
export const credentialStatusSchema = z.enum(['active', 'suspended', 'revoked'])

export const credentialSchema = z.object({
  credential_id: credentialIdSchema,
  type: z.literal(PROPERTY_OWNERSHIP),
  jurisdiction: z.string(),
  owner_did: z.string(),
  property_data: z.object({
    address: z.string(),
    type: z.string(),
    value_usd: z.number(),
    title_deed: z.string(),
  }),
  status: credentialStatusSchema,
  issuer_did: z.string(),
  issued_at: timestampSchema,
  valid_until: timestampSchema.nullable(),
  revoked_at: timestampSchema.nullable(),
  revocation_reason: z.string().nullable(),
  vc_jwt: z.string().describe('W3C VC 2.0 as a JOSE JWT (typ vc+jwt, EdDSA) signed by the issuer_did key'),
  credential_status: signedCredentialStatusSchema
    .nullable()
    .describe(
      'The `credentialStatus` inside vc_jwt (a revocation entry, then a suspension entry since suspension lists); null for a credential issued before status lists',
    ),
})

/** POST /console/rwa/credentials/{id}/revoke; the body is optional. */
export const revokeCredentialRequestSchema = z.strictObject({
  reason: text(500).optional().describe('Why the credential is revoked'),
})

/** POST /console/rwa/credentials/{id}/suspend and /attestations/{id}/suspend; the body is optional. */
export const suspendRequestSchema = z.strictObject({
  reason: text(500).optional().describe('Why it is suspended, e.g. under investigation'),
})

export const listCredentialsQuerySchema = z.strictObject({
  ...pageQuery('cred'),
  jurisdiction: jurisdictionIdSchema.optional(),
  owner_did: didSchema.optional(),
  status: credentialStatusSchema.optional(),
})
export const listCredentialsResponseSchema = z.object({
  credentials: z.array(credentialSchema),
  ...pageFields,
})

// ── Attestations ────────────────────────────────────────────────────────────

/** POST /console/rwa/attestations, an attestation the organization makes itself. */
export const selfAttestationRequestSchema = z
  .strictObject({
    jurisdiction: jurisdictionIdSchema.describe('The jurisdiction issuing (signing) the attestation'),
    subject_did: didSchema.describe('Who the attestation is about'),
    type: requirementNameSchema.describe('The requirement it satisfies, e.g. `kyc`'),
    attester: text(200).describe('Who performed the check, e.g. a KYC provider'),
    credential_id: credentialIdSchema
      .optional()
      .describe('The property credential it concerns; required for title_verification'),
    evidence: text(2000).optional().describe('Reference to the supporting evidence'),
    valid_until: timestampSchema.optional().describe('End of validity; none means it does not expire'),
  })
  .refine((a) => a.type !== TITLE_VERIFICATION || a.credential_id !== undefined, {
    path: ['credential_id'],
    message: 'required when type is title_verification',
  })

/** POST /console/rwa/attestations, a credential of a trusted issuer (docs/issuers.md, "Verification"). */
export const externalAttestationRequestSchema = z.strictObject({
  vc_jwt: z
    .string()
    .min(1)
    .max(32_768)
    .regex(
      /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/,
      'expected a compact JWS (three base64url parts)',
    )
    .describe("A trusted issuer's VC-JWT, verbatim: verified now"),
})

/**
 * POST /console/rwa/attestations: either the organization's own attestation (signed by the jurisdiction),
 * or `{ vc_jwt }`, a credential of a trusted issuer.
 */
export const submitAttestationRequestSchema = z.union([
  selfAttestationRequestSchema,
  externalAttestationRequestSchema,
])

export const attestationSchema = z.object({
  attestation_id: attestationIdSchema,
  source: z.literal('self').describe('Made by the organization, signed by its jurisdiction'),
  jurisdiction: z.string(),
  subject_did: z.string(),
  type: z.string(),
  attester: z.string(),
  credential_id: credentialIdSchema.nullable(),
  evidence: z.string().nullable(),
  issuer_did: z.string(),
  issued_at: timestampSchema,
  valid_until: timestampSchema.nullable(),
  vc_jwt: z.string(),
  credential_status: signedCredentialStatusSchema
    .nullable()
    .describe(
      'The `credentialStatus` inside vc_jwt (a revocation entry, then a suspension entry since suspension lists); null for an attestation issued before status lists',
    ),
  status: credentialStatusSchema.describe(
    '`suspended` while suspended (no evaluation relies on it until reinstated); `revoked` once revoked: no evaluation relies on it any more',
  ),
  revoked_at: timestampSchema.nullable(),
  revocation_reason: z.string().nullable(),
})

/** An attestation of a trusted issuer: its VC-JWT verbatim, verified when submitted. */
export const externalAttestationSchema = z.object({
  attestation_id: attestationIdSchema,
  source: z.literal('external').describe('A credential of a trusted issuer'),
  issuer_id: z.string(),
  issuer_did: z.string(),
  subject_did: z.string(),
  type: z.string().describe('The requirement it meets (by the issuer’s requirements and its VC types)'),
  vc_types: z.array(z.string()).describe('The VC’s `type`, as signed'),
  vc_jwt: z.string(),
  vc_sha256: z.string().describe('SHA-256 (hex) of vc_jwt'),
  valid_from: timestampSchema.nullable(),
  valid_until: timestampSchema.nullable(),
  credential_status: z.unknown().describe('The `credentialStatus` as signed (an entry, a list, or null)'),
  status: z
    .enum(['active', 'revoked', 'suspended'])
    .describe('As the issuer’s status lists said when last read'),
  submitted_at: timestampSchema,
  jurisdiction: z.null(),
})

/** What the attestation operations answer: the organization's own, or a trusted issuer's. */
export const anyAttestationSchema = z.union([attestationSchema, externalAttestationSchema])

/** POST /console/rwa/attestations/{id}/revoke; the body is optional. */
export const revokeAttestationRequestSchema = z.strictObject({
  reason: text(500).optional().describe('Why the attestation is revoked, e.g. found to be false'),
})

export const listAttestationsQuerySchema = z.strictObject({
  ...pageQuery('att'),
  jurisdiction: jurisdictionIdSchema.optional(),
  credential_id: z.string().min(1).max(64).optional(),
  subject_did: didSchema.optional(),
  type: requirementNameSchema.optional(),
})
export const listAttestationsResponseSchema = z.object({
  attestations: z.array(anyAttestationSchema),
  ...pageFields,
})

// ── Tokens ──────────────────────────────────────────────────────────────────

/** POST /console/rwa/tokenize. */
export const tokenizeRequestSchema = z.strictObject({
  credential_id: credentialIdSchema,
  total_supply: unitsSchema,
  symbol: z
    .string()
    .regex(/^[A-Z0-9]{1,12}$/, 'expected 1–12 upper-case letters or digits')
    .optional(),
})

export const tokenStatusSchema = z.enum(['active', 'paused', 'frozen'])

export const holdingSchema = z.object({
  holder_did: z.string(),
  jurisdiction: z.string(),
  amount: z.number().int().positive(),
  frozen_amount: z
    .number()
    .int()
    .nonnegative()
    .describe('Units of this holding an agent froze: only `amount - frozen_amount` can be sent'),
  frozen: z.boolean().describe('The holder is frozen for this token: it can neither send nor receive'),
})

/** `max_holders`: one cap for every jurisdiction, or a cap per jurisdiction (others uncapped). */
export const maxHoldersSchema = z
  .union([unitsSchema, z.record(jurisdictionIdSchema, unitsSchema)])
  .describe(
    'Holders with a non-zero holding in the target jurisdiction: a number for every jurisdiction, or `{ "SG": 50 }`',
  )

/** How long windows of `transfer_windows` and lock-ups may be: ten years. */
export const MAX_WINDOW_SECONDS = 315_360_000
export const MAX_LOCKUP_DAYS = 3650

/** One window of `transfer_windows`: the sender's approved volume within the last `seconds`. */
export const transferWindowSchema = z.strictObject({
  seconds: z.number().int().positive().max(MAX_WINDOW_SECONDS).describe('The length of the window, in seconds'),
  max_volume: unitsSchema.describe("The most units the sender's approved transfers may add up to within it"),
})

/** `transfer_windows`: 1 to 4 windows of different lengths. */
export const transferWindowsSchema = z
  .array(transferWindowSchema)
  .min(1)
  .max(4)
  .superRefine((windows, check) => {
    const seen = new Set<number>()
    windows.forEach((w, i) => {
      if (seen.has(w.seconds)) {
        check.addIssue({ code: 'custom', path: [i, 'seconds'], message: 'two windows of the same length' })
      }
      seen.add(w.seconds)
    })
  })

const lockupDaysSchema = z.number().int().positive().max(MAX_LOCKUP_DAYS)

/**
 * The transfer rules of a token (T-REX compliance modules), as the token shows them: every rule,
 * `null` when not set. Only rules that are set produce checks (`rule:<name>`) in an evaluation.
 */
export const tokenRulesSchema = z.object({
  max_balance_per_holder: unitsSchema
    .nullable()
    .describe("The recipient's total across jurisdictions after the transfer may not exceed it"),
  max_holders: maxHoldersSchema.nullable(),
  lockup_until: timestampSchema
    .nullable()
    .describe('Before this instant only forced transfers move the token'),
  max_transfer_amount: unitsSchema.nullable().describe('Largest amount of one transfer'),
  daily_volume_per_holder: unitsSchema
    .nullable()
    .describe("The sender's approved volume of the UTC day, this transfer included, may not exceed it"),
  min_holding: unitsSchema
    .nullable()
    .describe("After a transfer each side's total in the token is 0 or at least this"),
  transfer_windows: transferWindowsSchema
    .nullable()
    .describe(
      "Sliding windows, each capping the sender's approved volume (by identity when its DID has one) within its last `seconds`",
    ),
  lockup_days_after_receipt: lockupDaysSchema
    .nullable()
    .describe('Units received by mint or transfer cannot move for this many days, first in first out'),
  max_supply: unitsSchema.nullable().describe('A mint may not take the supply over it'),
  ...investorRulesShape,
})

/** The rules of a token that has none set. */
export const NO_RULES: TokenRules = Object.freeze({
  max_balance_per_holder: null,
  max_holders: null,
  lockup_until: null,
  max_transfer_amount: null,
  daily_volume_per_holder: null,
  min_holding: null,
  transfer_windows: null,
  lockup_days_after_receipt: null,
  max_supply: null,
  ...NO_INVESTOR_RULES,
})

/** PUT /console/rwa/tokens/{id}/rules: replaces the whole rules object; null or absent clears a rule. */
export const setTokenRulesRequestSchema = z.strictObject({
  max_balance_per_holder: unitsSchema.nullable().optional(),
  max_holders: maxHoldersSchema.nullable().optional(),
  lockup_until: timestampSchema.nullable().optional(),
  max_transfer_amount: unitsSchema.nullable().optional(),
  daily_volume_per_holder: unitsSchema.nullable().optional(),
  min_holding: unitsSchema.nullable().optional(),
  transfer_windows: transferWindowsSchema.nullable().optional(),
  lockup_days_after_receipt: lockupDaysSchema.nullable().optional(),
  max_supply: unitsSchema.nullable().optional(),
  ...investorRulesRequestShape,
  reason: reasonSchema.optional(),
})

/** How many holdings (the largest) a token carries in the list and the detail; the rest are paged. */
export const TOKEN_HOLDINGS_SHOWN = 100

export const tokenSchema = z.object({
  token_id: tokenIdSchema,
  credential_id: credentialIdSchema,
  jurisdiction: z.string().describe("The credential's jurisdiction, where the supply starts"),
  owner_did: z.string(),
  symbol: z.string().nullable(),
  total_supply: z.number().int().positive().describe('The units issued when the asset was tokenized'),
  supply: z
    .number()
    .int()
    .nonnegative()
    .describe('The units in existence now, the sum of every holding: total_supply, plus mints, less burns'),
  status: tokenStatusSchema.describe(
    '`paused` by an agent (POST .../pause); `frozen` once its credential is revoked (for good)',
  ),
  rules: tokenRulesSchema,
  holdings: z
    .array(holdingSchema)
    .describe(
      `Who holds how much where, largest first: the first ${TOKEN_HOLDINGS_SHOWN} holdings (all of them sum to supply); GET .../holdings pages through all`,
    ),
  holdings_total: z.number().int().nonnegative().describe('How many holdings the token has'),
  created_at: timestampSchema,
})

export const GOVERNANCE_EVENTS = [
  'tokenized',
  'transfer_approved',
  'transfer_rejected',
  'transfer_forced',
  'credential_revoked',
  'token_paused',
  'token_unpaused',
  'holder_frozen',
  'holder_unfrozen',
  'units_frozen',
  'units_unfrozen',
  'identity_recovered',
  'rules_updated',
  'attestation_revoked',
  'minted',
  'burned',
] as const

export const governanceEventSchema = z.object({
  event: z.enum(GOVERNANCE_EVENTS),
  at: timestampSchema,
  details: z
    .record(z.string(), z.unknown())
    .describe('What happened; agent operations carry `actor_key_id` (the key that acted) and `reason`'),
})

/** How many frozen DIDs (the first, in order) a token detail carries; the rest are paged. */
export const TOKEN_FROZEN_HOLDERS_SHOWN = 100

/** How many of the latest history events a token detail carries. */
export const TOKEN_DETAIL_HISTORY = 100

export const tokenDetailSchema = tokenSchema.extend({
  governance_history: z
    .array(governanceEventSchema)
    .describe(
      `The latest ${TOKEN_DETAIL_HISTORY} events, oldest first among them; GET .../history pages through all`,
    ),
  governance_history_total: z.number().int().nonnegative().describe('How many events the token has'),
  frozen_holders: z
    .array(z.string())
    .describe(
      `DIDs frozen for this token as a whole (whether or not they hold any of it), in order: the first ${TOKEN_FROZEN_HOLDERS_SHOWN}; GET .../frozen-holders pages through all`,
    ),
  frozen_holders_total: z.number().int().nonnegative().describe('How many DIDs are frozen for the token'),
})

export const listTokensQuerySchema = z.strictObject({
  ...pageQuery('tok'),
  jurisdiction: jurisdictionIdSchema.optional(),
  owner_did: didSchema.optional(),
  status: tokenStatusSchema.optional(),
})
export const listTokensResponseSchema = z.object({ tokens: z.array(tokenSchema), ...pageFields })

/** GET /console/rwa/tokens/{id}/history: every event, oldest first. */
export const tokenHistoryQuerySchema = z.strictObject({ ...pageQuery('evt') })
export const tokenHistoryResponseSchema = z.object({
  governance_history: z.array(governanceEventSchema),
  ...pageFields,
})

/** GET /console/rwa/tokens/{id}/holdings: ordered by holder, then jurisdiction. */
export const listHoldingsQuerySchema = z.strictObject({
  limit: pageQuery('evt').limit,
  // Holdings have no id: the cursor is the last (holder, jurisdiction) shown, encoded.
  cursor: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,1400}$/, 'expected the next_cursor of a previous page of this list')
    .optional()
    .describe("The previous page's `next_cursor`"),
  holder_did: didSchema.optional(),
  jurisdiction: jurisdictionIdSchema.optional(),
})
export const listHoldingsResponseSchema = z.object({ holdings: z.array(holdingSchema), ...pageFields })

/** GET /console/rwa/tokens/{id}/frozen-holders: the DIDs frozen for the token as a whole, in order. */
export const listFrozenHoldersQuerySchema = z.strictObject({
  limit: pageQuery('evt').limit,
  // The cursor is the last DID shown, encoded.
  cursor: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,1400}$/, 'expected the next_cursor of a previous page of this list')
    .optional()
    .describe("The previous page's `next_cursor`"),
})
export const listFrozenHoldersResponseSchema = z.object({
  frozen_holders: z.array(z.string()),
  ...pageFields,
})

// ── Agent operations (T-REX agent role, ERC-7943 enforcement) ──────────────

/** POST /console/rwa/tokens/{id}/pause and /unpause; the body is optional. */
export const tokenActionRequestSchema = z.strictObject({ reason: reasonSchema.optional() })

/** POST /console/rwa/tokens/{id}/freeze and /unfreeze. */
export const freezeRequestSchema = z
  .strictObject({
    holder_did: didSchema,
    jurisdiction: jurisdictionIdSchema
      .optional()
      .describe('The holding whose units are (un)frozen; required with `amount`'),
    amount: unitsSchema
      .optional()
      .describe('Units of the holding to freeze or unfreeze; without it the whole holder is (un)frozen'),
    reason: reasonSchema.optional(),
  })
  .superRefine((body, check) => {
    if (body.amount !== undefined && body.jurisdiction === undefined) {
      check.addIssue({
        code: 'custom',
        path: ['jurisdiction'],
        message: 'required with amount: name the holding whose units are frozen',
      })
    }
    if (body.amount === undefined && body.jurisdiction !== undefined) {
      check.addIssue({
        code: 'custom',
        path: ['jurisdiction'],
        message: 'only with amount: freezing a whole holder covers every jurisdiction',
      })
    }
  })

/** What a freeze or unfreeze left: whether the holder is frozen, and its holdings of the token. */
export const freezeStateSchema = z.object({
  token_id: tokenIdSchema,
  holder_did: z.string(),
  frozen: z.boolean(),
  holdings: z.array(holdingSchema),
})

/** POST /console/rwa/tokens/{id}/forced-transfer. */
export const forcedTransferRequestSchema = z.strictObject({
  from_did: didSchema,
  from_jurisdiction: jurisdictionIdSchema,
  to_did: didSchema,
  to_jurisdiction: jurisdictionIdSchema,
  amount: unitsSchema,
  reason: reasonSchema.describe('The authority for it, e.g. a court order reference'),
})

/** POST /console/rwa/tokens/{id}/mint: new units into a holding. */
export const mintRequestSchema = z.strictObject({
  to_did: didSchema,
  jurisdiction: jurisdictionIdSchema.describe('Where the new units are held'),
  amount: unitsSchema,
  reason: reasonSchema.describe('Why, e.g. a subscription round'),
})

/** POST /console/rwa/tokens/{id}/burn: units taken out of existence from a holding. */
export const burnRequestSchema = z.strictObject({
  from_did: didSchema,
  jurisdiction: jurisdictionIdSchema.describe('The holding the units are taken from'),
  amount: unitsSchema,
  reason: reasonSchema.describe('Why, e.g. a redemption'),
})

/** POST /console/rwa/tokens/{id}/recover. */
export const recoverRequestSchema = z
  .strictObject({ lost_did: didSchema, new_did: didSchema, reason: reasonSchema })
  .refine((r) => r.lost_did !== r.new_did, { path: ['new_did'], message: 'must differ from lost_did' })

export const recoveryResultSchema = z.object({
  lost_did: z.string(),
  new_did: z.string(),
  moved: z.array(holdingSchema).describe('The holdings moved, as the new DID now holds what moved'),
  proof_id: proofIdSchema,
  log_index: logIndexField(
    "The log position of this recovery's audit event (`token.recovered`) in the organization's verifiable log (GET /console/audit/log/inclusion proves it is there); the same as its proof's `log_index`",
  ),
})

// ── Transfers and proofs ────────────────────────────────────────────────────

/** The fields of a transfer request: the token, both sides, and how much. */
const transferRouteFields = {
  from_jurisdiction: jurisdictionIdSchema,
  to_jurisdiction: jurisdictionIdSchema,
  recipient_did: didSchema,
  sender_did: didSchema.optional().describe("Whose holding moves; defaults to the token's owner"),
}

/** POST /console/rwa/transfers (spec 2.3). */
export const requestTransferRequestSchema = z.strictObject({
  token_id: tokenIdSchema,
  ...transferRouteFields,
  amount: unitsSchema.describe('Whole units of the token'),
})

/** GET /console/rwa/tokens/{id}/can-transfer: the transfer's fields, evaluated and recorded nowhere. */
export const canTransferQuerySchema = z.strictObject({
  ...transferRouteFields,
  amount: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER).describe('Whole units'),
})

export const transferStatusSchema = z.enum(['approved', 'rejected', 'forced'])

/** One check of a transfer evaluation. */
export const complianceCheckSchema = z.object({
  requirement: z
    .string()
    .describe(
      'A requirement name; a built-in check (`token_active`, `credential_valid`, `sufficient_holding`, `holder_not_frozen`, `unfrozen_balance`, `trust`); or a token rule `rule:<name>`',
    ),
  jurisdiction: z.string().describe('The jurisdiction whose rule this check applies'),
  satisfied: z.boolean(),
  evidence: z
    .string()
    .nullable()
    .describe(
      'What the check relied on: an attestation, credential, token or trust id; a rule or frozen amount as `name=value`',
    ),
  reason: z.string(),
  issuer_did: z
    .string()
    .optional()
    .describe(
      "Only on a check met by a trusted issuer's attestation (the evidence): the issuer's DID, signed in the proof",
    ),
  vc_sha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/, 'expected the lower-case hex SHA-256 of the VC-JWT')
    .optional()
    .describe(
      "Only on a check met by a trusted issuer's attestation: the hex SHA-256 of its VC-JWT as submitted, signed in the proof",
    ),
})

/** The spec's three fields of an evaluation (what a transfer list item carries). */
export const complianceSummarySchema = z.object({
  source_requirements: z.array(z.string()),
  target_requirements: z.array(z.string()),
  all_satisfied: z.boolean(),
})

export const complianceDetailsSchema = complianceSummarySchema.extend({
  checks: z.array(complianceCheckSchema),
})

export const canTransferResponseSchema = z.object({
  allowed: z.boolean().describe('What POST /console/rwa/transfers would decide now'),
  compliance_details: complianceDetailsSchema,
})

/** The transfer a proof is about, as it was evaluated. */
export const proofTransferSchema = z.object({
  from_jurisdiction: z.string(),
  to_jurisdiction: z.string(),
  sender_did: z.string(),
  recipient_did: z.string(),
  amount: z.number().int(),
})

/** What a recovery moved, as its proof records it. */
export const proofRecoverySchema = z.object({
  lost_did: z.string(),
  new_did: z.string(),
  moved: z.array(holdingSchema),
})

export const proofDecisionSchema = z.enum(['approved', 'rejected', 'forced', 'recovered'])

/**
 * A compliance proof. Its evaluated facts are every field but `digest`, `jws`, `kid` and `log_index`;
 * `digest` is the lower-case hex SHA-256 of their RFC 8785 canonical JSON, and `jws` a compact EdDSA JWS
 * whose payload is exactly those canonical bytes, signed by the service key `kid` (see the JWKS). A
 * transfer's proof (decision approved, rejected or forced) has `transfer_id` and `transfer`; a recovery's
 * has `recovery`. Each carries its event's `log_index`: a pointer to it in the log, not a signed fact.
 * Agent operations carry their `reason`. A version-2 proof also signs `version`, `org_id` and `issuers`,
 * so that a proof made for one organization cannot pass as another's.
 */
export const proofSchema = z.object({
  version: z
    .literal(2)
    .optional()
    .describe('2 for a proof that signs org_id and issuers; absent on a version-1 proof'),
  org_id: z.string().optional().describe('The organization the proof was made for (version 2)'),
  issuers: z
    .record(z.string(), z.string())
    .optional()
    .describe(
      'jurisdiction_id → issuer_did of every jurisdiction the proof names (a transfer: source and target; a recovery: where the units were), as they were when it was signed (version 2)',
    ),
  proof_id: proofIdSchema,
  transfer_id: transferIdSchema.optional(),
  token_id: tokenIdSchema,
  decision: proofDecisionSchema,
  evaluated_at: timestampSchema,
  transfer: proofTransferSchema.optional(),
  recovery: proofRecoverySchema.optional(),
  reason: z.string().optional(),
  compliance_details: complianceDetailsSchema,
  digest: z.string().regex(/^[0-9a-f]{64}$/),
  jws: z.string(),
  kid: z.string(),
  log_index: logIndexField(
    "The log position of its event (GET /console/audit/log/inclusion proves it is in the organization's log): a transfer's proof its transfer's (`transfer.<status>`), a recovery's proof its recovery's (`token.recovered`, whose `changes` name the proof); a pointer, not a signed fact",
  ),
})

/** A transfer as a list shows it: its parties and outcome, and the spec's three compliance fields. */
export const transferSummarySchema = z.object({
  transfer_id: transferIdSchema,
  status: transferStatusSchema,
  proof_id: proofIdSchema,
  compliance_details: complianceSummarySchema,
  token_id: tokenIdSchema,
  from_jurisdiction: z.string(),
  to_jurisdiction: z.string(),
  sender_did: z.string(),
  recipient_did: z.string(),
  amount: z.number().int().positive(),
  created_at: timestampSchema,
})

/** A transfer with its evaluation's checks (the answer to POST, and in the detail). */
export const transferSchema = transferSummarySchema.extend({
  compliance_details: complianceDetailsSchema,
  reason: z.string().nullable().describe('Why an agent forced it; null for a requested transfer'),
  log_index: logIndexField(
    "The log position of this transfer's audit event (`transfer.<status>`) in the organization's verifiable log (GET /console/audit/log/inclusion proves it is there), appended in the transaction that records the transfer, before it answers; the same as its proof's `log_index`",
  ),
})

export const transferDetailSchema = transferSchema.extend({ proof: proofSchema })

export const listTransfersQuerySchema = z.strictObject({
  ...pageQuery('tx'),
  token_id: z.string().min(1).max(64).optional(),
  status: transferStatusSchema.optional(),
  jurisdiction: jurisdictionIdSchema
    .optional()
    .describe('Transfers with this jurisdiction as source or target'),
})
export const listTransfersResponseSchema = z.object({
  transfers: z.array(transferSummarySchema),
  ...pageFields,
})

/** An Ed25519 public key as a JWK. */
export const ed25519JwkSchema = z.object({
  kty: z.literal('OKP'),
  crv: z.literal('Ed25519'),
  x: z.string(),
  kid: z.string(),
  alg: z.literal('EdDSA'),
  use: z.literal('sig'),
})

/** A key of the JWKS: retired proof keys stay, marked with when they were retired. */
export const jwksKeySchema = ed25519JwkSchema.extend({
  retired_at: timestampSchema
    .optional()
    .describe(
      'Set once a rotation retired the key: it signed the proofs made before, and still verifies them',
    ),
})

/**
 * GET /console/rwa/.well-known/jwks.json: the service's public keys: the proof key signing now, the
 * log's key (checkpoints), then the retired proof keys (newest first), so every proof ever signed
 * finds its `kid`.
 */
export const jwksSchema = z.object({ keys: z.array(jwksKeySchema) })

/** POST /console/rwa/signing-keys/rotate (admin key): why, for the audit log. */
export const rotateSigningKeyRequestSchema = z.strictObject({
  reason: text(500).optional().describe('Why the key is rotated (recorded in the audit log)'),
})

/** The proof key a rotation made, and the one it retired. */
export const rotatedSigningKeySchema = z.object({
  kid: z.string().describe('The new proof key: every proof from now on carries this kid'),
  valid_from: timestampSchema,
  retired: z
    .object({ kid: z.string(), retired_at: timestampSchema })
    .describe('The key it replaced: kept in the JWKS and the trust bundle, so the proofs it signed verify'),
})

/** A proof key of a trust bundle: the JWK and when it signed (retired keys included). */
export const trustBundleKeySchema = ed25519JwkSchema.extend({
  valid_from: timestampSchema,
  valid_until: timestampSchema.nullable().describe('When it was retired; null while it signs'),
})

/**
 * An issuer of a trust bundle: a jurisdiction's did:key and when it was that jurisdiction's. A
 * jurisdiction keeps its key for life: a removed one stays listed (`removed_at`), valid until then.
 */
export const trustBundleIssuerSchema = z.object({
  jurisdiction_id: z.string(),
  issuer_did: z.string(),
  valid_from: timestampSchema.describe("The jurisdiction id's first registration"),
  valid_until: timestampSchema.nullable().describe('Its removal; null while it is registered'),
  removed_at: timestampSchema
    .optional()
    .describe(
      'Only on a removed jurisdiction: when it was removed (registering the id again takes the key back)',
    ),
})

/**
 * A trusted issuer of a trust bundle (docs/issuers.md, "In the trust bundle"): its DID, every key it ever
 * had (as the issuers API gives them), what it is trusted for and where. Removed issuers stay listed
 * (`status: removed`), so the attestations they signed before keep verifying.
 */
export const trustBundleExternalIssuerSchema = z.object({
  issuer_id: z.string(),
  did: z.string(),
  keys: z.array(issuerKeySchema).describe('Every Ed25519 key the DID ever had, retired ones included'),
  requirements: z
    .record(z.string(), z.array(z.string()))
    .describe('Requirement → the VC types of the issuer that meet it'),
  jurisdictions: z.array(z.string()).describe('The jurisdictions that recognise its credentials'),
  status: issuerStatusSchema,
  valid_until: timestampSchema.nullable().describe('When the organization stops trusting it; null: no end'),
})

/**
 * GET /console/rwa/trust-bundle: what an auditor needs to verify the organization's credentials,
 * attestations and proofs offline (`rwa trust-bundle > trust.json`, then `--trust trust.json`).
 */
export const trustBundleSchema = z.object({
  org_id: z.string(),
  generated_at: timestampSchema,
  proof_keys: z.object({ keys: z.array(trustBundleKeySchema) }),
  issuers: z.array(trustBundleIssuerSchema),
  log_key: logKeySchema
    .optional()
    .describe(
      "The key that signs the checkpoints of the organization's verifiable log; absent from bundles saved before the log existed",
    ),
  external_issuers: z
    .array(trustBundleExternalIssuerSchema)
    .optional()
    .describe(
      "The organization's trusted issuers (outside providers), removed ones included, by issuer_id; absent from bundles saved before they existed",
    ),
})

export type RegisterJurisdictionRequest = z.infer<typeof registerJurisdictionRequestSchema>
export type UpdateJurisdictionRequest = z.infer<typeof updateJurisdictionRequestSchema>
export type Jurisdiction = z.infer<typeof jurisdictionSchema>
export type ListJurisdictionsQuery = z.infer<typeof listJurisdictionsQuerySchema>
export type ListJurisdictionsResponse = z.infer<typeof listJurisdictionsResponseSchema>
export type RemoveJurisdictionResponse = z.infer<typeof removeJurisdictionResponseSchema>
export type EstablishTrustRequest = z.infer<typeof establishTrustRequestSchema>
export type TrustPair = z.infer<typeof trustPairSchema>
export type TrustRelation = z.infer<typeof trustRelationSchema>
export type ListTrustQuery = z.infer<typeof listTrustQuerySchema>
export type ListTrustResponse = z.infer<typeof listTrustResponseSchema>
export type RevokeTrustResponse = z.infer<typeof revokeTrustResponseSchema>
export type PropertyData = z.infer<typeof propertyDataSchema>
export type IssueCredentialRequest = z.infer<typeof issueCredentialRequestSchema>
export type Credential = z.infer<typeof credentialSchema>
export type RevokeCredentialRequest = z.infer<typeof revokeCredentialRequestSchema>
export type ListCredentialsQuery = z.infer<typeof listCredentialsQuerySchema>
export type ListCredentialsResponse = z.infer<typeof listCredentialsResponseSchema>
export type SubmitAttestationRequest = z.infer<typeof submitAttestationRequestSchema>
export type Attestation = z.infer<typeof attestationSchema>
export type ExternalAttestation = z.infer<typeof externalAttestationSchema>
export type AnyAttestation = z.infer<typeof anyAttestationSchema>
export type SelfAttestationRequest = z.infer<typeof selfAttestationRequestSchema>
export type ExternalAttestationRequest = z.infer<typeof externalAttestationRequestSchema>
export type ListAttestationsQuery = z.infer<typeof listAttestationsQuerySchema>
export type ListAttestationsResponse = z.infer<typeof listAttestationsResponseSchema>
export type TokenizeRequest = z.infer<typeof tokenizeRequestSchema>
export type Holding = z.infer<typeof holdingSchema>
export type Token = z.infer<typeof tokenSchema>
export type GovernanceEvent = z.infer<typeof governanceEventSchema>
export type TokenDetail = z.infer<typeof tokenDetailSchema>
export type ListTokensQuery = z.infer<typeof listTokensQuerySchema>
export type ListTokensResponse = z.infer<typeof listTokensResponseSchema>
export type RequestTransferRequest = z.infer<typeof requestTransferRequestSchema>
export type TransferStatus = z.infer<typeof transferStatusSchema>
export type ComplianceCheck = z.infer<typeof complianceCheckSchema>
export type ComplianceDetails = z.infer<typeof complianceDetailsSchema>
export type ProofTransfer = z.infer<typeof proofTransferSchema>
export type Proof = z.infer<typeof proofSchema>
export type Transfer = z.infer<typeof transferSchema>
export type TransferDetail = z.infer<typeof transferDetailSchema>
export type ListTransfersQuery = z.infer<typeof listTransfersQuerySchema>
export type ListTransfersResponse = z.infer<typeof listTransfersResponseSchema>
export type Jwks = z.infer<typeof jwksSchema>
export type RotateSigningKeyRequest = z.infer<typeof rotateSigningKeyRequestSchema>
export type RotatedSigningKey = z.infer<typeof rotatedSigningKeySchema>
export type TrustBundle = z.infer<typeof trustBundleSchema>
export type TrustBundleExternalIssuer = z.infer<typeof trustBundleExternalIssuerSchema>
export type RevokeAttestationRequest = z.infer<typeof revokeAttestationRequestSchema>
export type CredentialStatusEntry = z.infer<typeof credentialStatusEntrySchema>
export type SignedCredentialStatus = z.infer<typeof signedCredentialStatusSchema>
export type SuspendRequest = z.infer<typeof suspendRequestSchema>
export type TokenRules = z.infer<typeof tokenRulesSchema>
export type SetTokenRulesRequest = z.infer<typeof setTokenRulesRequestSchema>
export type TokenHistoryQuery = z.infer<typeof tokenHistoryQuerySchema>
export type TokenHistoryResponse = z.infer<typeof tokenHistoryResponseSchema>
export type ListHoldingsQuery = z.infer<typeof listHoldingsQuerySchema>
export type ListHoldingsResponse = z.infer<typeof listHoldingsResponseSchema>
export type ListFrozenHoldersQuery = z.infer<typeof listFrozenHoldersQuerySchema>
export type ListFrozenHoldersResponse = z.infer<typeof listFrozenHoldersResponseSchema>
export type TokenActionRequest = z.infer<typeof tokenActionRequestSchema>
export type FreezeRequest = z.infer<typeof freezeRequestSchema>
export type FreezeState = z.infer<typeof freezeStateSchema>
export type ForcedTransferRequest = z.infer<typeof forcedTransferRequestSchema>
export type MintRequest = z.infer<typeof mintRequestSchema>
export type BurnRequest = z.infer<typeof burnRequestSchema>
export type TransferWindow = z.infer<typeof transferWindowSchema>
export type RecoverRequest = z.infer<typeof recoverRequestSchema>
export type RecoveryResult = z.infer<typeof recoveryResultSchema>
export type CanTransferQuery = z.infer<typeof canTransferQuerySchema>
export type CanTransferResponse = z.infer<typeof canTransferResponseSchema>
export type ComplianceSummary = z.infer<typeof complianceSummarySchema>
export type TransferSummary = z.infer<typeof transferSummarySchema>
