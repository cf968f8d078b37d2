import {
  type Attestation,
  type Credential,
  type EstablishTrustRequest,
  type IssueCredentialRequest,
  type Jurisdiction,
  type Jwks,
  KNOWN_REQUIREMENTS,
  type ListAttestationsQuery,
  type ListAttestationsResponse,
  type ListCredentialsQuery,
  type ListCredentialsResponse,
  type ListJurisdictionsQuery,
  type ListJurisdictionsResponse,
  type ListTokensQuery,
  type ListTokensResponse,
  type ListTransfersQuery,
  type ListTransfersResponse,
  type ListTrustQuery,
  type ListTrustResponse,
  PROPERTY_OWNERSHIP,
  type Proof,
  type ProofTransfer,
  REGULATORY_ATTESTATION,
  type RegisterJurisdictionRequest,
  type RemoveJurisdictionResponse,
  type RequestTransferRequest,
  type RevokeCredentialRequest,
  type RevokeTrustResponse,
  type SubmitAttestationRequest,
  TITLE_VERIFICATION,
  type TokenDetail,
  type TokenizeRequest,
  type Transfer,
  type TransferDetail,
  type TrustPair,
  type TrustRelation,
  type UpdateJurisdictionRequest,
} from '../../src/contract/rwa.js'
import { canonicalFacts, type ProofFacts, proofDigest } from '../../src/proof/verify.js'
import type { Principal } from '../auth/principal.js'
import { isoTimestamp, utcDate } from '../clock.js'
import type { AppContext } from '../context.js'
import { ApiError, notFound } from '../errors.js'
import { evaluateTransfer } from './evaluate-transfer.js'
import * as q from './queries.js'
import {
  attestationRecord,
  credentialRecord,
  jurisdictionRecord,
  proofRecord,
  tokenDetailRecord,
  tokenRecord,
  transferRecord,
  trustRecord,
} from './records.js'
import { generateSigningKey } from './signing-keys.js'

/*
 * The governance rules, free of HTTP. Every function acts inside the caller's organization only: a row
 * of another organization is never read, so its id answers 404 like an unknown one. Every write is one
 * database transaction.
 */

const VC_CONTEXT = ['https://www.w3.org/ns/credentials/v2']

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`

/** The jurisdiction, or 404. */
async function jurisdictionOr404(db: q.Executor, orgId: string, id: string) {
  const row = await q.findJurisdiction(db, orgId, id)
  if (!row) throw notFound('jurisdiction', id)
  return row
}

function assertAccepts(row: { jurisdiction_id: string; credential_types: string }, type: string): void {
  const accepted = JSON.parse(row.credential_types) as string[]
  if (!accepted.includes(type)) {
    throw new ApiError(
      'unprocessable',
      `Jurisdiction ${row.jurisdiction_id} does not accept ${type} credentials (it accepts: ${accepted.join(', ') || 'none'}); add ${type} to its credential_types with PUT /console/rwa/jurisdictions/${row.jurisdiction_id}`,
    )
  }
}

function assertFuture(validUntil: string | undefined, now: number, what: string): void {
  if (validUntil !== undefined && Date.parse(validUntil) <= now) {
    throw new ApiError('unprocessable', `valid_until of the ${what} must be in the future`, {
      errors: [{ path: 'valid_until', message: 'must be in the future' }],
    })
  }
}

/** A timestamp given with any offset, as UTC (`...Z`), so stored times compare as text. */
const utcTimestamp = (at: string | undefined): string | null =>
  at === undefined ? null : isoTimestamp(Date.parse(at))

// ── Jurisdictions ───────────────────────────────────────────────────────────

/** Registers a jurisdiction with a new Ed25519 key; its issuer_did is that key's did:key. */
export async function registerJurisdiction(
  ctx: AppContext,
  principal: Principal,
  input: RegisterJurisdictionRequest,
): Promise<Jurisdiction> {
  const now = isoTimestamp(ctx.clock.now())
  const key = generateSigningKey()
  const row = {
    org_id: principal.orgId,
    jurisdiction_id: input.jurisdiction_id,
    seq: ctx.ids.next('jur'),
    name: input.name,
    regulatory_body: input.regulatory_body,
    frameworks: JSON.stringify(input.frameworks),
    credential_types: JSON.stringify(input.credential_types),
    transfer_requirements: JSON.stringify(input.transfer_requirements),
    issuer_did: key.did,
    private_key: key.privateKey,
    created_at: now,
    updated_at: now,
  }
  await ctx.db.transaction().execute(async (trx) => {
    if (await q.findJurisdiction(trx, principal.orgId, input.jurisdiction_id)) {
      throw new ApiError('conflict', `Jurisdiction ${input.jurisdiction_id} is already registered`)
    }
    await trx.insertInto('jurisdictions').values(row).execute()
  })
  return jurisdictionRecord(row)
}

export async function getJurisdiction(
  ctx: AppContext,
  principal: Principal,
  id: string,
): Promise<Jurisdiction> {
  return jurisdictionRecord(await jurisdictionOr404(ctx.db, principal.orgId, id))
}

export async function listJurisdictions(
  ctx: AppContext,
  principal: Principal,
  query: ListJurisdictionsQuery,
): Promise<ListJurisdictionsResponse> {
  const page = await q.listJurisdictions(ctx.db, principal.orgId, query)
  return {
    jurisdictions: page.rows.map(jurisdictionRecord),
    total: page.total,
    next_cursor: page.next_cursor,
  }
}

/** Replaces the mutable fields; the id, key and issuer_did never change. */
export async function updateJurisdiction(
  ctx: AppContext,
  principal: Principal,
  id: string,
  input: UpdateJurisdictionRequest,
): Promise<Jurisdiction> {
  const updated_at = isoTimestamp(ctx.clock.now())
  return ctx.db.transaction().execute(async (trx) => {
    const row = await jurisdictionOr404(trx, principal.orgId, id)
    const changes = {
      name: input.name,
      regulatory_body: input.regulatory_body,
      frameworks: JSON.stringify(input.frameworks),
      credential_types: JSON.stringify(input.credential_types),
      transfer_requirements: JSON.stringify(input.transfer_requirements),
      updated_at,
    }
    await trx
      .updateTable('jurisdictions')
      .set(changes)
      .where('org_id', '=', principal.orgId)
      .where('jurisdiction_id', '=', id)
      .execute()
    return jurisdictionRecord({ ...row, ...changes })
  })
}

/** Removes a jurisdiction nothing refers to any more (409 naming what still does). */
export async function removeJurisdiction(
  ctx: AppContext,
  principal: Principal,
  id: string,
): Promise<RemoveJurisdictionResponse> {
  await ctx.db.transaction().execute(async (trx) => {
    await jurisdictionOr404(trx, principal.orgId, id)
    const usage = await q.jurisdictionUsage(trx, principal.orgId, id)
    const uses = [
      usage.credentials > 0 && plural(usage.credentials, 'credential'),
      usage.attestations > 0 && plural(usage.attestations, 'attestation'),
      usage.tokens > 0 && plural(usage.tokens, 'token'),
      usage.holdings > 0 && plural(usage.holdings, 'token holding'),
      usage.trust > 0 && plural(usage.trust, 'active trust relation'),
    ].filter((u): u is string => typeof u === 'string')
    if (uses.length > 0) {
      const hint = usage.trust > 0 ? '; revoke its trust relations first' : ''
      throw new ApiError('conflict', `Jurisdiction ${id} is still in use by ${uses.join(', ')}${hint}`)
    }
    await trx
      .deleteFrom('jurisdictions')
      .where('org_id', '=', principal.orgId)
      .where('jurisdiction_id', '=', id)
      .execute()
  })
  return { status: 'removed', jurisdiction_id: id }
}

// ── Trust ───────────────────────────────────────────────────────────────────

/** Establishes trust from one jurisdiction to another (both ways when mutual); one relation per pair. */
export async function establishTrust(
  ctx: AppContext,
  principal: Principal,
  input: EstablishTrustRequest,
): Promise<TrustRelation> {
  const orgId = principal.orgId
  const row = {
    trust_id: ctx.ids.next('trust'),
    org_id: orgId,
    from_jurisdiction: input.from_jurisdiction,
    to_jurisdiction: input.to_jurisdiction,
    mutual: input.mutual ? 1 : 0,
    status: 'active',
    created_at: isoTimestamp(ctx.clock.now()),
    revoked_at: null,
  }
  await ctx.db.transaction().execute(async (trx) => {
    await jurisdictionOr404(trx, orgId, input.from_jurisdiction)
    await jurisdictionOr404(trx, orgId, input.to_jurisdiction)
    const existing = await q.findActiveTrustBetween(
      trx,
      orgId,
      input.from_jurisdiction,
      input.to_jurisdiction,
    )
    if (existing) {
      const shape = existing.mutual
        ? 'mutual'
        : `one-way from ${existing.from_jurisdiction} to ${existing.to_jurisdiction}`
      throw new ApiError(
        'conflict',
        `Trust between ${input.from_jurisdiction} and ${input.to_jurisdiction} already exists (${existing.trust_id}, ${shape}); revoke it first to change it`,
      )
    }
    await trx.insertInto('trust_relations').values(row).execute()
  })
  return trustRecord(row)
}

/** Revokes the active relation carrying trust from `from` to `to` (a mutual one in either order). */
export async function revokeTrust(
  ctx: AppContext,
  principal: Principal,
  pair: TrustPair,
): Promise<RevokeTrustResponse> {
  const revoked_at = isoTimestamp(ctx.clock.now())
  return ctx.db.transaction().execute(async (trx) => {
    const row = await q.findActiveTrustBetween(
      trx,
      principal.orgId,
      pair.from_jurisdiction,
      pair.to_jurisdiction,
    )
    const matches = row && (row.mutual === 1 || row.from_jurisdiction === pair.from_jurisdiction)
    if (!row || !matches) {
      const other = row
        ? ` (there is one from ${row.from_jurisdiction} to ${row.to_jurisdiction}: ${row.trust_id})`
        : ''
      throw new ApiError(
        'not_found',
        `No active trust from ${pair.from_jurisdiction} to ${pair.to_jurisdiction}${other}`,
      )
    }
    await trx
      .updateTable('trust_relations')
      .set({ status: 'revoked', revoked_at })
      .where('trust_id', '=', row.trust_id)
      .execute()
    return {
      status: 'revoked' as const,
      trust_id: row.trust_id,
      from_jurisdiction: row.from_jurisdiction,
      to_jurisdiction: row.to_jurisdiction,
      mutual: row.mutual === 1,
      revoked_at,
    }
  })
}

export async function listTrust(
  ctx: AppContext,
  principal: Principal,
  query: ListTrustQuery,
): Promise<ListTrustResponse> {
  const page = await q.listTrust(ctx.db, principal.orgId, query)
  return { trust_relations: page.rows.map(trustRecord), total: page.total, next_cursor: page.next_cursor }
}

// ── Credentials ─────────────────────────────────────────────────────────────

/**
 * Issues a property credential signed by the jurisdiction's key. An owner DID new to the organization
 * counts against `max_dids` and in the day's `dids_created`, in the same transaction.
 */
export async function issueCredential(
  ctx: AppContext,
  principal: Principal,
  input: IssueCredentialRequest,
): Promise<Credential> {
  const orgId = principal.orgId
  const nowMs = ctx.clock.now()
  const now = isoTimestamp(nowMs)
  assertFuture(input.valid_until, nowMs, 'credential')
  const validUntil = utcTimestamp(input.valid_until)
  const credentialId = ctx.ids.next('cred')
  return ctx.db.transaction().execute(async (trx) => {
    const jurisdiction = await jurisdictionOr404(trx, orgId, input.jurisdiction)
    assertAccepts(jurisdiction, PROPERTY_OWNERSHIP)

    if (!(await q.isKnownDid(trx, orgId, input.owner_did))) {
      const max = principal.entitlement.limits.max_dids
      if (max !== 'unlimited' && (await q.countDids(trx, orgId)) >= max) {
        throw new ApiError(
          'quota_exceeded',
          `Organization ${orgId} has reached its limit of ${max} DIDs (max_dids); ${input.owner_did} would be a new one. Issue to a known owner DID or move to a higher tier`,
        )
      }
      await q.recordNewDid(trx, orgId, input.owner_did, now, utcDate(nowMs))
    }

    const vc_jwt = await ctx.signingKeys.signCredential(
      { did: jurisdiction.issuer_did, privateKey: jurisdiction.private_key },
      {
        id: `urn:rwa:credential:${credentialId}`,
        subject: input.owner_did,
        issuedAt: nowMs,
        '@context': VC_CONTEXT,
        type: ['VerifiableCredential', 'PropertyOwnershipCredential'],
        issuer: jurisdiction.issuer_did,
        validFrom: now,
        ...(validUntil ? { validUntil } : {}),
        credentialSubject: {
          id: input.owner_did,
          jurisdiction: input.jurisdiction,
          property: input.property_data,
        },
      },
    )
    const row = {
      credential_id: credentialId,
      org_id: orgId,
      jurisdiction: input.jurisdiction,
      owner_did: input.owner_did,
      property_data: JSON.stringify(input.property_data),
      status: 'active',
      issuer_did: jurisdiction.issuer_did,
      issued_at: now,
      valid_until: validUntil,
      revoked_at: null,
      revocation_reason: null,
      vc_jwt,
    }
    await trx.insertInto('credentials').values(row).execute()
    return credentialRecord(row)
  })
}

export async function getCredential(ctx: AppContext, principal: Principal, id: string): Promise<Credential> {
  const row = await q.findCredential(ctx.db, principal.orgId, id)
  if (!row) throw notFound('credential', id)
  return credentialRecord(row)
}

export async function listCredentials(
  ctx: AppContext,
  principal: Principal,
  query: ListCredentialsQuery,
): Promise<ListCredentialsResponse> {
  const page = await q.listCredentials(ctx.db, principal.orgId, query)
  return { credentials: page.rows.map(credentialRecord), total: page.total, next_cursor: page.next_cursor }
}

/** Revokes a credential for good and freezes the token it backs (recorded in the token's history). */
export async function revokeCredential(
  ctx: AppContext,
  principal: Principal,
  id: string,
  input: RevokeCredentialRequest,
): Promise<Credential> {
  const now = isoTimestamp(ctx.clock.now())
  const reason = input.reason ?? null
  return ctx.db.transaction().execute(async (trx) => {
    const row = await q.findCredential(trx, principal.orgId, id)
    if (!row) throw notFound('credential', id)
    if (row.status === 'revoked') {
      throw new ApiError('conflict', `Credential ${id} was already revoked at ${row.revoked_at}`)
    }
    await trx
      .updateTable('credentials')
      .set({ status: 'revoked', revoked_at: now, revocation_reason: reason })
      .where('credential_id', '=', id)
      .execute()
    const token = await q.findTokenByCredential(trx, id)
    if (token) {
      await trx
        .updateTable('tokens')
        .set({ status: 'frozen' })
        .where('token_id', '=', token.token_id)
        .execute()
      await trx
        .insertInto('token_events')
        .values({
          event_id: ctx.ids.next('evt'),
          org_id: principal.orgId,
          token_id: token.token_id,
          event: 'credential_revoked',
          at: now,
          details: JSON.stringify({ credential_id: id, reason, token_status: 'frozen' }),
        })
        .execute()
    }
    return credentialRecord({ ...row, status: 'revoked', revoked_at: now, revocation_reason: reason })
  })
}

// ── Attestations ────────────────────────────────────────────────────────────

/** Records a regulatory attestation, signed by the attesting jurisdiction's key. */
export async function submitAttestation(
  ctx: AppContext,
  principal: Principal,
  input: SubmitAttestationRequest,
): Promise<Attestation> {
  const orgId = principal.orgId
  const nowMs = ctx.clock.now()
  const now = isoTimestamp(nowMs)
  assertFuture(input.valid_until, nowMs, 'attestation')
  const validUntil = utcTimestamp(input.valid_until)
  const attestationId = ctx.ids.next('att')
  return ctx.db.transaction().execute(async (trx) => {
    const jurisdiction = await jurisdictionOr404(trx, orgId, input.jurisdiction)
    assertAccepts(jurisdiction, REGULATORY_ATTESTATION)
    const known = await q.requirementNamesOf(trx, orgId)
    if (!(KNOWN_REQUIREMENTS as readonly string[]).includes(input.type) && !known.has(input.type)) {
      throw new ApiError(
        'unprocessable',
        `Attestation type ${input.type} is not a requirement: use one of ${[...new Set([...KNOWN_REQUIREMENTS, ...known])].join(', ')}, or list it in a jurisdiction's transfer_requirements first`,
        { errors: [{ path: 'type', message: 'unknown requirement name' }] },
      )
    }
    if (input.credential_id && !(await q.findCredential(trx, orgId, input.credential_id))) {
      throw notFound('credential', input.credential_id)
    }

    const vc_jwt = await ctx.signingKeys.signCredential(
      { did: jurisdiction.issuer_did, privateKey: jurisdiction.private_key },
      {
        id: `urn:rwa:attestation:${attestationId}`,
        subject: input.subject_did,
        issuedAt: nowMs,
        '@context': VC_CONTEXT,
        type: ['VerifiableCredential', 'RegulatoryAttestationCredential'],
        issuer: jurisdiction.issuer_did,
        validFrom: now,
        ...(validUntil ? { validUntil } : {}),
        credentialSubject: {
          id: input.subject_did,
          requirement: input.type,
          jurisdiction: input.jurisdiction,
          attester: input.attester,
          ...(input.credential_id ? { credential: `urn:rwa:credential:${input.credential_id}` } : {}),
          ...(input.evidence ? { evidence: input.evidence } : {}),
        },
      },
    )
    const row = {
      attestation_id: attestationId,
      org_id: orgId,
      jurisdiction: input.jurisdiction,
      subject_did: input.subject_did,
      type: input.type,
      attester: input.attester,
      credential_id: input.credential_id ?? null,
      evidence: input.evidence ?? null,
      issuer_did: jurisdiction.issuer_did,
      issued_at: now,
      valid_until: validUntil,
      vc_jwt,
    }
    await trx.insertInto('attestations').values(row).execute()
    return attestationRecord(row)
  })
}

export async function getAttestation(
  ctx: AppContext,
  principal: Principal,
  id: string,
): Promise<Attestation> {
  const row = await q.findAttestation(ctx.db, principal.orgId, id)
  if (!row) throw notFound('attestation', id)
  return attestationRecord(row)
}

export async function listAttestations(
  ctx: AppContext,
  principal: Principal,
  query: ListAttestationsQuery,
): Promise<ListAttestationsResponse> {
  const page = await q.listAttestations(ctx.db, principal.orgId, query)
  return { attestations: page.rows.map(attestationRecord), total: page.total, next_cursor: page.next_cursor }
}

// ── Tokens ──────────────────────────────────────────────────────────────────

/** Tokenizes an active credential, once: the whole supply starts with the owner in its jurisdiction. */
export async function tokenize(
  ctx: AppContext,
  principal: Principal,
  input: TokenizeRequest,
): Promise<TokenDetail> {
  const orgId = principal.orgId
  const nowMs = ctx.clock.now()
  const now = isoTimestamp(nowMs)
  const tokenId = ctx.ids.next('tok')
  return ctx.db.transaction().execute(async (trx) => {
    const credential = await q.findCredential(trx, orgId, input.credential_id)
    if (!credential) throw notFound('credential', input.credential_id)
    if (credential.status === 'revoked') {
      throw new ApiError(
        'conflict',
        `Credential ${credential.credential_id} is revoked and cannot be tokenized`,
      )
    }
    if (credential.valid_until !== null && Date.parse(credential.valid_until) <= nowMs) {
      throw new ApiError(
        'conflict',
        `Credential ${credential.credential_id} expired at ${credential.valid_until} and cannot be tokenized`,
      )
    }
    const existing = await q.findTokenByCredential(trx, credential.credential_id)
    if (existing) {
      throw new ApiError(
        'conflict',
        `Credential ${credential.credential_id} is already tokenized as ${existing.token_id}`,
      )
    }
    const row = {
      token_id: tokenId,
      org_id: orgId,
      credential_id: credential.credential_id,
      jurisdiction: credential.jurisdiction,
      owner_did: credential.owner_did,
      symbol: input.symbol ?? null,
      total_supply: input.total_supply,
      status: 'active',
      created_at: now,
    }
    const holding = {
      token_id: tokenId,
      holder_did: credential.owner_did,
      jurisdiction: credential.jurisdiction,
      amount: input.total_supply,
    }
    const event = {
      event_id: ctx.ids.next('evt'),
      org_id: orgId,
      token_id: tokenId,
      event: 'tokenized',
      at: now,
      details: JSON.stringify({
        credential_id: credential.credential_id,
        total_supply: input.total_supply,
        holder_did: credential.owner_did,
        jurisdiction: credential.jurisdiction,
      }),
    }
    await trx.insertInto('tokens').values(row).execute()
    await trx.insertInto('holdings').values(holding).execute()
    await trx.insertInto('token_events').values(event).execute()
    return tokenDetailRecord(row, [holding], [event])
  })
}

export async function getToken(ctx: AppContext, principal: Principal, id: string): Promise<TokenDetail> {
  const row = await q.findToken(ctx.db, principal.orgId, id)
  if (!row) throw notFound('token', id)
  const [holdings, events] = await Promise.all([q.holdingsOf(ctx.db, [id]), q.tokenEvents(ctx.db, id)])
  return tokenDetailRecord(row, holdings, events)
}

export async function listTokens(
  ctx: AppContext,
  principal: Principal,
  query: ListTokensQuery,
): Promise<ListTokensResponse> {
  const page = await q.listTokens(ctx.db, principal.orgId, query)
  const holdings = await q.holdingsOf(
    ctx.db,
    page.rows.map((r) => r.token_id),
  )
  return {
    tokens: page.rows.map((row) => tokenRecord(row, holdings)),
    total: page.total,
    next_cursor: page.next_cursor,
  }
}

// ── Transfers and proofs ────────────────────────────────────────────────────

/**
 * Requests a transfer: more than the sender holds in the source is 409 and records nothing; otherwise
 * the evaluation decides, and the transfer, its signed proof and the token's history are recorded in
 * one transaction, with the holdings moved only when approved.
 */
export async function requestTransfer(
  ctx: AppContext,
  principal: Principal,
  input: RequestTransferRequest,
): Promise<Transfer> {
  const orgId = principal.orgId
  const nowMs = ctx.clock.now()
  const now = isoTimestamp(nowMs)
  const transferId = ctx.ids.next('tx')
  const proofId = ctx.ids.next('prf')
  await ctx.signingKeys.prepareProofKey()
  return ctx.db.transaction().execute(async (trx) => {
    const token = await q.findToken(trx, orgId, input.token_id)
    if (!token) throw notFound('token', input.token_id)
    const ids = [...new Set([input.from_jurisdiction, input.to_jurisdiction])]
    const jurisdictions = new Map(
      (await q.findJurisdictions(trx, orgId, ids)).map((j) => [j.jurisdiction_id, j] as const),
    )
    for (const id of ids) if (!jurisdictions.has(id)) throw notFound('jurisdiction', id)
    const from = jurisdictions.get(input.from_jurisdiction)!
    const to = jurisdictions.get(input.to_jurisdiction)!

    const sender = input.sender_did ?? token.owner_did
    const held = await q.holdingOf(trx, token.token_id, sender, from.jurisdiction_id)
    if (input.amount > held) {
      throw new ApiError(
        'conflict',
        `Insufficient holding: ${sender} holds ${held} of ${token.token_id} in ${from.jurisdiction_id}, fewer than the ${input.amount} requested`,
      )
    }

    const credential = await q.findCredential(trx, orgId, token.credential_id)
    if (!credential) throw new Error(`token ${token.token_id} has no credential ${token.credential_id}`)
    const fromRequirements = JSON.parse(from.transfer_requirements) as string[]
    const toRequirements = JSON.parse(to.transfer_requirements) as string[]
    const personal = [...new Set([...fromRequirements, ...toRequirements])].filter(
      (r) => r !== TITLE_VERIFICATION,
    )
    const [trust, attestations] = await Promise.all([
      q.activeTrustTouching(trx, orgId, ids),
      q.attestationsForTransfer(
        trx,
        orgId,
        input.recipient_did,
        personal,
        token.credential_id,
        TITLE_VERIFICATION,
      ),
    ])
    const compliance_details = evaluateTransfer({
      token,
      credential,
      from: { jurisdiction_id: from.jurisdiction_id, transfer_requirements: fromRequirements },
      to: { jurisdiction_id: to.jurisdiction_id, transfer_requirements: toRequirements },
      recipient_did: input.recipient_did,
      trust: trust.map((t) => ({ ...t, mutual: t.mutual === 1 })),
      attestations,
      now,
    })
    const status = compliance_details.all_satisfied ? 'approved' : 'rejected'

    const transfer: ProofTransfer = {
      from_jurisdiction: from.jurisdiction_id,
      to_jurisdiction: to.jurisdiction_id,
      sender_did: sender,
      recipient_did: input.recipient_did,
      amount: input.amount,
    }
    const facts: ProofFacts = {
      proof_id: proofId,
      transfer_id: transferId,
      token_id: token.token_id,
      decision: status,
      evaluated_at: now,
      transfer,
      compliance_details,
    }
    const canonical = canonicalFacts(facts)
    const { jws, kid } = await ctx.signingKeys.signProof(canonical)

    const row = {
      transfer_id: transferId,
      org_id: orgId,
      token_id: token.token_id,
      ...transfer,
      status,
      proof_id: proofId,
      compliance_details: JSON.stringify(compliance_details),
      created_at: now,
    }
    await trx.insertInto('transfers').values(row).execute()
    await trx
      .insertInto('proofs')
      .values({
        proof_id: proofId,
        org_id: orgId,
        transfer_id: transferId,
        facts: canonical,
        digest: proofDigest(facts),
        jws,
        kid,
      })
      .execute()
    const failed = compliance_details.checks.filter((c) => !c.satisfied).map((c) => c.reason)
    await trx
      .insertInto('token_events')
      .values({
        event_id: ctx.ids.next('evt'),
        org_id: orgId,
        token_id: token.token_id,
        event: status === 'approved' ? 'transfer_approved' : 'transfer_rejected',
        at: now,
        details: JSON.stringify({
          transfer_id: transferId,
          proof_id: proofId,
          ...transfer,
          ...(failed.length > 0 ? { reasons: failed } : {}),
        }),
      })
      .execute()
    if (status === 'approved') {
      await q.adjustHolding(trx, token.token_id, sender, from.jurisdiction_id, -input.amount)
      await q.adjustHolding(trx, token.token_id, input.recipient_did, to.jurisdiction_id, input.amount)
    }
    return transferRecord(row)
  })
}

export async function getTransfer(
  ctx: AppContext,
  principal: Principal,
  id: string,
): Promise<TransferDetail> {
  const row = await q.findTransfer(ctx.db, principal.orgId, id)
  if (!row) throw notFound('transfer', id)
  const proof = await q.findProof(ctx.db, principal.orgId, row.proof_id)
  if (!proof) throw new Error(`transfer ${id} has no proof ${row.proof_id}`)
  return { ...transferRecord(row), proof: proofRecord(proof) }
}

export async function listTransfers(
  ctx: AppContext,
  principal: Principal,
  query: ListTransfersQuery,
): Promise<ListTransfersResponse> {
  const page = await q.listTransfers(ctx.db, principal.orgId, query)
  return { transfers: page.rows.map(transferRecord), total: page.total, next_cursor: page.next_cursor }
}

export async function getProof(ctx: AppContext, principal: Principal, id: string): Promise<Proof> {
  const row = await q.findProof(ctx.db, principal.orgId, id)
  if (!row) throw notFound('proof', id)
  return proofRecord(row)
}

/** The public keys that verify proofs. */
export function jwks(ctx: AppContext): Promise<Jwks> {
  return ctx.signingKeys.jwks()
}
