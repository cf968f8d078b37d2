import { expectStatus, OWNER, PROPERTY, US } from './governance.js'
import { insertIdentity } from '../../server/areas/rwa/identities/queries.js'
import type { ApiCaller, TestInstance } from './harness.js'

/** The organization of the admin key. */
const ADMIN_ORG = 'admin'

/*
 * A world for the rules that read identities: one jurisdiction without requirements (so only the token's
 * rules decide), a token of OWNER, and identities made through the identities API.
 */

export async function investorWorld(h: ApiCaller, supply = 1000): Promise<{ tokenId: string }> {
  await expectStatus(h.post('/console/rwa/jurisdictions', { ...US, transfer_requirements: [] }), 201)
  const credential = await expectStatus(
    h.post('/console/rwa/credentials', { jurisdiction: 'US', owner_did: OWNER, property_data: PROPERTY }),
    201,
  )
  const token = await expectStatus(
    h.post('/console/rwa/tokenize', { credential_id: credential.credential_id, total_supply: supply }),
    201,
  )
  return { tokenId: token.token_id }
}

/**
 * An identity of the admin organization over `dids`, written to the storage as the identities API
 * writes it (its rows of migration 0026).
 */
export async function identity(
  h: TestInstance,
  identityId: string,
  country: string,
  dids: string[],
  category: string | null = null,
): Promise<void> {
  const at = '2026-01-01T00:00:00.000Z'
  await insertIdentity(h.ctx.db, {
    org_id: ADMIN_ORG,
    identity_id: identityId,
    seq: identityId,
    country,
    category,
    created_at: at,
    updated_at: at,
  })
  await h.ctx.db
    .insertInto('identity_dids')
    .values(dids.map((did) => ({ org_id: ADMIN_ORG, did, identity_id: identityId, added_at: at })))
    .execute()
}

/** A transfer within US from `sender` (the owner by default) to `recipient`. */
export const move = (tokenId: string, recipient: string, amount: number, sender = OWNER) => ({
  token_id: tokenId,
  from_jurisdiction: 'US',
  to_jurisdiction: 'US',
  sender_did: sender,
  recipient_did: recipient,
  amount,
})

export const setRules = (h: ApiCaller, tokenId: string, rules: Record<string, unknown>) =>
  expectStatus(h.request('PUT', `/console/rwa/tokens/${tokenId}/rules`, { body: rules }), 200)

/** The failing checks of a transfer's answer. */
export const failing = (transfer: { compliance_details: { checks: Array<{ satisfied: boolean }> } }) =>
  transfer.compliance_details.checks.filter((c) => !c.satisfied)
