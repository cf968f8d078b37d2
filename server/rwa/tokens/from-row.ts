import type { Selectable } from 'kysely'
import {
  type GovernanceEvent,
  type Holding,
  NO_RULES,
  type Token,
  type TokenDetail,
  type TokenRules,
} from '../../../src/contract/rwa.js'
import type { HoldingsTable, TokenEventsTable, TokensTable } from '../../db/schema.js'

type HoldingRow = Pick<Selectable<HoldingsTable>, 'holder_did' | 'jurisdiction' | 'amount' | 'frozen_amount'>

/** The API record of a holding; `frozen` says whether its holder is frozen for the token. */
export const holdingFromRow = (h: HoldingRow, frozen: boolean): Holding => ({
  holder_did: h.holder_did,
  jurisdiction: h.jurisdiction,
  amount: Number(h.amount),
  frozen_amount: Number(h.frozen_amount),
  frozen,
})

/** The rules a token shows: every rule, null when not set. */
export const rulesFromRow = (rules: string | null): TokenRules =>
  rules === null ? { ...NO_RULES } : { ...NO_RULES, ...(JSON.parse(rules) as Partial<TokenRules>) }

/** The key of a (token, holder) pair in the set of frozen holders `tokenFromRow` takes. */
export const frozenKey = (tokenId: string, holderDid: string): string => `${tokenId}\u0000${holderDid}`

/**
 * The API record of a stored token, with its holdings among `holdings` (those of other tokens are
 * skipped); `frozen` holds the frozenKey of every frozen (token, holder) pair.
 */
export function tokenFromRow(
  row: Selectable<TokensTable>,
  holdings: Array<HoldingRow & { token_id: string }>,
  frozen: ReadonlySet<string>,
): Token {
  return {
    token_id: row.token_id,
    credential_id: row.credential_id,
    jurisdiction: row.jurisdiction,
    owner_did: row.owner_did,
    symbol: row.symbol,
    total_supply: Number(row.total_supply),
    status: row.status as Token['status'],
    rules: rulesFromRow(row.rules),
    holdings: holdings
      .filter((h) => h.token_id === row.token_id)
      .map((h) => holdingFromRow(h, frozen.has(frozenKey(row.token_id, h.holder_did)))),
    created_at: row.created_at,
  }
}

export const eventFromRow = (e: Selectable<TokenEventsTable>): GovernanceEvent => ({
  event: e.event as GovernanceEvent['event'],
  at: e.at,
  details: JSON.parse(e.details),
})

/** The token with its latest history events (oldest first among them), their total and frozen holders. */
export function tokenDetailFromRow(
  row: Selectable<TokensTable>,
  holdings: Array<HoldingRow & { token_id: string }>,
  frozenHolders: string[],
  events: Selectable<TokenEventsTable>[],
  eventsTotal: number,
): TokenDetail {
  const frozen = new Set(frozenHolders.map((did) => frozenKey(row.token_id, did)))
  return {
    ...tokenFromRow(row, holdings, frozen),
    governance_history: events.map(eventFromRow),
    governance_history_total: eventsTotal,
    frozen_holders: frozenHolders,
  }
}
