import { expectStatus, OWNER, PROPERTY, US } from './governance.js'
import type { ApiCaller } from './harness.js'

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

/** An identity over `dids`, made through the identities API. */
export async function identity(
  h: ApiCaller,
  identityId: string,
  country: string,
  dids: string[],
  category?: string,
): Promise<void> {
  await expectStatus(
    h.post('/console/rwa/identities', {
      identity_id: identityId,
      country,
      dids,
      ...(category ? { category } : {}),
    }),
    201,
  )
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
