import type { z } from 'zod'
import {
  attestationSchema,
  type CanTransferQuery,
  canTransferResponseSchema,
  type ForcedTransferRequest,
  type FreezeRequest,
  freezeStateSchema,
  type ListHoldingsQuery,
  listHoldingsResponseSchema,
  type RecoverRequest,
  recoveryResultSchema,
  type SetTokenRulesRequest,
  type TokenActionRequest,
  tokenHistoryResponseSchema,
  credentialSchema,
  type establishTrustRequestSchema,
  type issueCredentialRequestSchema,
  jurisdictionSchema,
  jwksSchema,
  type ListAttestationsQuery,
  type ListCredentialsQuery,
  type ListTokensQuery,
  type ListTransfersQuery,
  type ListTrustQuery,
  listAttestationsResponseSchema,
  listCredentialsResponseSchema,
  listJurisdictionsResponseSchema,
  listTokensResponseSchema,
  listTransfersResponseSchema,
  listTrustResponseSchema,
  proofSchema,
  type RequestTransferRequest,
  type registerJurisdictionRequestSchema,
  removeJurisdictionResponseSchema,
  type RevokeCredentialRequest,
  revokeTrustResponseSchema,
  type SubmitAttestationRequest,
  type TokenizeRequest,
  type TrustPair,
  tokenDetailSchema,
  tokenSchema,
  transferDetailSchema,
  transferSchema,
  trustRelationSchema,
  type updateJurisdictionRequestSchema,
} from '../contract/rwa.js'
import type { HttpClient, Query } from './http.js'

const BASE = '/console/rwa'
const seg = encodeURIComponent

/** Page parameters of every governance list, with its filters. */
type ListQuery<F> = Partial<F> & { limit?: number; cursor?: string }

/** The 22 governance endpoints under `/console/rwa/`, plus the JWKS that verifies proofs. */
export class GovernanceClient {
  constructor(private readonly http: HttpClient) {}

  // ── Jurisdictions ─────────────────────────────────────────────────────────
  listJurisdictions(query: ListQuery<object> = {}) {
    return this.http.call({
      method: 'GET',
      path: `${BASE}/jurisdictions`,
      query: query as Query,
      schema: listJurisdictionsResponseSchema,
    })
  }

  getJurisdiction(id: string) {
    return this.http.call({
      method: 'GET',
      path: `${BASE}/jurisdictions/${seg(id)}`,
      schema: jurisdictionSchema,
    })
  }

  registerJurisdiction(body: z.input<typeof registerJurisdictionRequestSchema>) {
    return this.http.call({ method: 'POST', path: `${BASE}/jurisdictions`, body, schema: jurisdictionSchema })
  }

  /** Replaces every mutable field; omitted lists take their defaults. */
  updateJurisdiction(id: string, body: z.input<typeof updateJurisdictionRequestSchema>) {
    return this.http.call({
      method: 'PUT',
      path: `${BASE}/jurisdictions/${seg(id)}`,
      body,
      schema: jurisdictionSchema,
    })
  }

  removeJurisdiction(id: string) {
    return this.http.call({
      method: 'DELETE',
      path: `${BASE}/jurisdictions/${seg(id)}`,
      schema: removeJurisdictionResponseSchema,
    })
  }

  // ── Trust ─────────────────────────────────────────────────────────────────
  listTrust(query: ListQuery<ListTrustQuery> = {}) {
    return this.http.call({
      method: 'GET',
      path: `${BASE}/jurisdictions/trust`,
      query: query as Query,
      schema: listTrustResponseSchema,
    })
  }

  establishTrust(body: z.input<typeof establishTrustRequestSchema>) {
    return this.http.call({
      method: 'POST',
      path: `${BASE}/jurisdictions/trust`,
      body,
      schema: trustRelationSchema,
    })
  }

  /** The pair goes in the query: some proxies drop DELETE bodies. */
  revokeTrust(pair: TrustPair) {
    return this.http.call({
      method: 'DELETE',
      path: `${BASE}/jurisdictions/trust`,
      query: { ...pair },
      schema: revokeTrustResponseSchema,
    })
  }

  // ── Credentials ───────────────────────────────────────────────────────────
  listCredentials(query: ListQuery<ListCredentialsQuery> = {}) {
    return this.http.call({
      method: 'GET',
      path: `${BASE}/credentials`,
      query: query as Query,
      schema: listCredentialsResponseSchema,
    })
  }

  getCredential(id: string) {
    return this.http.call({ method: 'GET', path: `${BASE}/credentials/${seg(id)}`, schema: credentialSchema })
  }

  issueCredential(body: z.input<typeof issueCredentialRequestSchema>) {
    return this.http.call({ method: 'POST', path: `${BASE}/credentials`, body, schema: credentialSchema })
  }

  revokeCredential(id: string, body: RevokeCredentialRequest = {}) {
    return this.http.call({
      method: 'POST',
      path: `${BASE}/credentials/${seg(id)}/revoke`,
      body,
      schema: credentialSchema,
    })
  }

  // ── Attestations ──────────────────────────────────────────────────────────
  listAttestations(query: ListQuery<ListAttestationsQuery> = {}) {
    return this.http.call({
      method: 'GET',
      path: `${BASE}/attestations`,
      query: query as Query,
      schema: listAttestationsResponseSchema,
    })
  }

  getAttestation(id: string) {
    return this.http.call({
      method: 'GET',
      path: `${BASE}/attestations/${seg(id)}`,
      schema: attestationSchema,
    })
  }

  submitAttestation(body: SubmitAttestationRequest) {
    return this.http.call({ method: 'POST', path: `${BASE}/attestations`, body, schema: attestationSchema })
  }

  // ── Tokens ────────────────────────────────────────────────────────────────
  tokenize(body: TokenizeRequest) {
    return this.http.call({ method: 'POST', path: `${BASE}/tokenize`, body, schema: tokenSchema })
  }

  listTokens(query: ListQuery<ListTokensQuery> = {}) {
    return this.http.call({
      method: 'GET',
      path: `${BASE}/tokens`,
      query: query as Query,
      schema: listTokensResponseSchema,
    })
  }

  /** With its rules, frozen holders and latest governance history. */
  getToken(id: string) {
    return this.http.call({ method: 'GET', path: `${BASE}/tokens/${seg(id)}`, schema: tokenDetailSchema })
  }

  /** Every event of a token's history, oldest first, a page at a time. */
  tokenHistory(id: string, query: ListQuery<object> = {}) {
    return this.http.call({
      method: 'GET',
      path: `${BASE}/tokens/${seg(id)}/history`,
      query: query as Query,
      schema: tokenHistoryResponseSchema,
    })
  }

  listHoldings(id: string, query: ListQuery<ListHoldingsQuery> = {}) {
    return this.http.call({
      method: 'GET',
      path: `${BASE}/tokens/${seg(id)}/holdings`,
      query: query as Query,
      schema: listHoldingsResponseSchema,
    })
  }

  /** Replaces the whole rules object: a rule absent or null is cleared. */
  setTokenRules(id: string, body: SetTokenRulesRequest) {
    return this.http.call({
      method: 'PUT',
      path: `${BASE}/tokens/${seg(id)}/rules`,
      body,
      schema: tokenDetailSchema,
    })
  }

  pauseToken(id: string, body: TokenActionRequest = {}) {
    return this.http.call({
      method: 'POST',
      path: `${BASE}/tokens/${seg(id)}/pause`,
      body,
      schema: tokenDetailSchema,
    })
  }

  unpauseToken(id: string, body: TokenActionRequest = {}) {
    return this.http.call({
      method: 'POST',
      path: `${BASE}/tokens/${seg(id)}/unpause`,
      body,
      schema: tokenDetailSchema,
    })
  }

  /** Without `amount` the whole holder; with `amount` and `jurisdiction` that many units of a holding. */
  freeze(id: string, body: FreezeRequest) {
    return this.http.call({
      method: 'POST',
      path: `${BASE}/tokens/${seg(id)}/freeze`,
      body,
      schema: freezeStateSchema,
    })
  }

  unfreeze(id: string, body: FreezeRequest) {
    return this.http.call({
      method: 'POST',
      path: `${BASE}/tokens/${seg(id)}/unfreeze`,
      body,
      schema: freezeStateSchema,
    })
  }

  forcedTransfer(id: string, body: ForcedTransferRequest) {
    return this.http.call({
      method: 'POST',
      path: `${BASE}/tokens/${seg(id)}/forced-transfer`,
      body,
      schema: transferSchema,
    })
  }

  recover(id: string, body: RecoverRequest) {
    return this.http.call({
      method: 'POST',
      path: `${BASE}/tokens/${seg(id)}/recover`,
      body,
      schema: recoveryResultSchema,
    })
  }

  /** Would this transfer be approved now? Records nothing. */
  canTransfer(id: string, query: CanTransferQuery) {
    return this.http.call({
      method: 'GET',
      path: `${BASE}/tokens/${seg(id)}/can-transfer`,
      query: { ...query } as Query,
      schema: canTransferResponseSchema,
    })
  }

  // ── Transfers and proofs ──────────────────────────────────────────────────
  /** Answers 201 whether the transfer is approved or rejected; read `status`. */
  requestTransfer(body: RequestTransferRequest) {
    return this.http.call({ method: 'POST', path: `${BASE}/transfers`, body, schema: transferSchema })
  }

  listTransfers(query: ListQuery<ListTransfersQuery> = {}) {
    return this.http.call({
      method: 'GET',
      path: `${BASE}/transfers`,
      query: query as Query,
      schema: listTransfersResponseSchema,
    })
  }

  /** With its compliance proof. */
  getTransfer(id: string) {
    return this.http.call({
      method: 'GET',
      path: `${BASE}/transfers/${seg(id)}`,
      schema: transferDetailSchema,
    })
  }

  getProof(id: string) {
    return this.http.call({ method: 'GET', path: `${BASE}/proofs/${seg(id)}`, schema: proofSchema })
  }

  /** The service's proof-signing public keys. */
  getJwks() {
    return this.http.call({ method: 'GET', path: `${BASE}/.well-known/jwks.json`, schema: jwksSchema })
  }
}
