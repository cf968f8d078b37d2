import type { TokenRules } from '../../../../src/contract/rwa.js'
import type { Executor } from '../../../platform/db/queries.js'
import { holderIdentitiesIn, totalOfDids } from '../holdings/identity-queries.js'
import { didsSharingIdentity, identitiesOfDids } from '../identities/queries.js'
import {
  addsCappedHolder,
  type InvestorFacts,
  type InvestorIdentity,
  NO_INVESTOR_FACTS,
  readsIdentities,
} from './investor-rules.js'
import type { Movement } from './ledger-checks.js'

/*
 * What the rules that read identities need (investor-rules.ts), gathered in the transfer's transaction
 * after the token's row lock (facts.ts): nothing at all when no such rule is set; the country's holder
 * count only when the transfer would add a holder identity to a capped country. What the evaluation
 * read already is not asked again: the recipient's DIDs (read for its attestations) and its balance,
 * which is its investor's total when its identity has no other DID (or it has none).
 */
export async function investorFacts(
  trx: Executor,
  orgId: string,
  rules: TokenRules,
  move: Movement,
  supply: number,
  known: {
    /** The DIDs sharing the recipient's identity (itself included), when the evaluation read them. */
    recipient_dids?: readonly string[]
    /** The recipient's units of the token across jurisdictions. */
    recipient_balance: number
  },
): Promise<InvestorFacts> {
  if (!readsIdentities(rules)) return NO_INVESTOR_FACTS
  const identities = await identitiesOfDids(trx, orgId, [move.sender_did, move.recipient_did])
  const identityOf = (did: string): InvestorIdentity | null => {
    const row = identities.get(did)
    return row ? { identity_id: row.identity_id, country: row.country, category: row.category } : null
  }
  const counts = rules.max_holders_per_country !== null || rules.max_ownership_percent !== null
  const didsOf = async (did: string, read?: readonly string[]) =>
    identities.has(did) ? (read ?? (await didsSharingIdentity(trx, orgId, did))) : [did]
  const recipientTotal = async () => {
    const dids = await didsOf(move.recipient_did, known.recipient_dids)
    // A single DID is the recipient itself (didsSharingIdentity includes it): its balance.
    return dids.length === 1 ? known.recipient_balance : totalOfDids(trx, move.token_id, dids)
  }
  const facts: InvestorFacts = {
    recipient_identity: identityOf(move.recipient_did),
    sender_identity: identityOf(move.sender_did),
    recipient_total: counts ? await recipientTotal() : 0,
    sender_total: 0,
    country_holders: null,
    supply,
  }
  if (addsCappedHolder(rules, move, facts)) {
    // Whether the sender's identity leaves the country, and how many holder identities it has.
    facts.sender_total = await totalOfDids(trx, move.token_id, await didsOf(move.sender_did))
    facts.country_holders = await holderIdentitiesIn(
      trx,
      orgId,
      move.token_id,
      facts.recipient_identity!.country,
    )
  }
  return facts
}
