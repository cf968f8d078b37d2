import { expect } from 'vitest'
import type { ApiCaller } from './harness.js'

/** Register payloads for two jurisdictions with the four requirements the spec names. */
export const US = {
  jurisdiction_id: 'US',
  name: 'United States',
  regulatory_body: 'SEC',
  frameworks: ['Reg D', 'Reg S'],
  credential_types: ['PropertyOwnership', 'RegulatoryAttestation'],
  transfer_requirements: ['kyc', 'aml', 'title_verification'],
}

export const SG = {
  jurisdiction_id: 'SG',
  name: 'Singapore',
  regulatory_body: 'MAS',
  frameworks: ['SFA'],
  credential_types: ['PropertyOwnership', 'RegulatoryAttestation'],
  transfer_requirements: ['kyc', 'aml', 'investor_qualification'],
}

/** Every governance list: its path and the plural its page holds the records under. */
export const GOVERNANCE_LISTS = [
  ['/console/rwa/jurisdictions', 'jurisdictions'],
  ['/console/rwa/jurisdictions/trust', 'trust_relations'],
  ['/console/rwa/credentials', 'credentials'],
  ['/console/rwa/attestations', 'attestations'],
  ['/console/rwa/tokens', 'tokens'],
  ['/console/rwa/transfers', 'transfers'],
] as const

export const OWNER = 'did:web:acme:alice'
export const RECIPIENT = 'did:web:lion:bob'

export const PROPERTY = {
  address: '1 Market St, San Francisco, CA',
  type: 'commercial',
  value_usd: 2_500_000,
  title_deed: 'SF-2026-000123',
}

/** Sends a request and asserts its status, returning the body. */
export async function expectStatus<T = any>(
  promise: Promise<{ status: number; body: T; text: string }>,
  status: number,
): Promise<T> {
  const res = await promise
  if (res.status !== status) expect.fail(`expected ${status}, got ${res.status}: ${res.text}`)
  return res.body
}

export interface World {
  key: string
  credentialId: string
  tokenId: string
  attestations: Record<string, string>
}

/**
 * Builds the usual world with `key`: US and SG, trust US → SG, a credential of OWNER in US, every
 * attestation the transfer US → SG of RECIPIENT needs (issued in US, recognised by SG through trust),
 * and a token of 1000 units.
 */
export async function buildWorld(
  h: ApiCaller,
  key = h.adminKey,
  options: { trust?: boolean; supply?: number } = {},
): Promise<World> {
  const opts = { key }
  await expectStatus(h.post('/console/rwa/jurisdictions', US, opts), 201)
  await expectStatus(h.post('/console/rwa/jurisdictions', SG, opts), 201)
  if (options.trust !== false) {
    await expectStatus(
      h.post('/console/rwa/jurisdictions/trust', { from_jurisdiction: 'US', to_jurisdiction: 'SG' }, opts),
      201,
    )
  }
  const credential = await expectStatus(
    h.post(
      '/console/rwa/credentials',
      { jurisdiction: 'US', owner_did: OWNER, property_data: PROPERTY },
      opts,
    ),
    201,
  )
  const attestations: Record<string, string> = {}
  for (const type of ['kyc', 'aml', 'investor_qualification']) {
    const att = await expectStatus(
      h.post(
        '/console/rwa/attestations',
        { jurisdiction: 'US', subject_did: RECIPIENT, type, attester: 'Acme KYC Ltd' },
        opts,
      ),
      201,
    )
    attestations[type] = att.attestation_id
  }
  const title = await expectStatus(
    h.post(
      '/console/rwa/attestations',
      {
        jurisdiction: 'US',
        subject_did: OWNER,
        type: 'title_verification',
        attester: 'First American Title',
        credential_id: credential.credential_id,
      },
      opts,
    ),
    201,
  )
  attestations.title_verification = title.attestation_id
  const token = await expectStatus(
    h.post(
      '/console/rwa/tokenize',
      { credential_id: credential.credential_id, total_supply: options.supply ?? 1000, symbol: 'SF1' },
      opts,
    ),
    201,
  )
  return { key, credentialId: credential.credential_id, tokenId: token.token_id, attestations }
}

/** A transfer body from US to SG for RECIPIENT. */
export const transferBody = (tokenId: string, amount = 100, extra: Record<string, unknown> = {}) => ({
  token_id: tokenId,
  from_jurisdiction: 'US',
  to_jurisdiction: 'SG',
  recipient_did: RECIPIENT,
  amount,
  ...extra,
})

/** Every event name of a token's governance history, oldest first, paged through the history endpoint. */
export async function historyEvents(h: ApiCaller, tokenId: string, key = h.adminKey): Promise<string[]> {
  const events: string[] = []
  let cursor: string | undefined
  do {
    const page = await expectStatus(
      h.get(`/console/rwa/tokens/${tokenId}/history`, { key, query: { limit: 500, cursor } }),
      200,
    )
    events.push(...page.governance_history.map((e: { event: string }) => e.event))
    cursor = page.next_cursor ?? undefined
  } while (cursor)
  return events
}

/** Every entry of the organization's log up to `size`, page by page as /log/entries gives them. */
export async function logEntries(h: ApiCaller, key: string, size: number): Promise<any[]> {
  const entries: any[] = []
  while (entries.length < size) {
    const page = await expectStatus(
      h.get('/console/audit/log/entries', { key, query: { start: entries.length, end: size } }),
      200,
    )
    entries.push(...page.entries)
  }
  return entries
}
