import type { Selectable } from 'kysely'
import {
  type GovernanceEvent,
  type Holding,
  NO_RULES,
  type Token,
  type TokenDetail,
  type TokenRules,
} from '../../../../src/contract/rwa.js'
import type { HoldingsTable, TokenEventsTable, TokensTable } from '../../../platform/db/schema.js'

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

/**
 * The API record of a stored token with `holdings` (its largest, as the API shows them; each knows
 * whether its holder is frozen) and how many holdings it has in all.
 */
export function tokenFromRow(
  row: Selectable<TokensTable>,
  holdings: Holding[],
  holdingsTotal: number,
): Token {
  return {
    token_id: row.token_id,
    credential_id: row.credential_id,
    jurisdiction: row.jurisdiction,
    owner_did: row.owner_did,
    symbol: row.symbol,
    total_supply: Number(row.total_supply),
    supply: Number(row.supply),
    status: row.status as Token['status'],
    rules: rulesFromRow(row.rules),
    holdings,
    holdings_total: holdingsTotal,
    created_at: row.created_at,
  }
}

export const eventFromRow = (e: Selectable<TokenEventsTable>): GovernanceEvent => ({
  event: e.event as GovernanceEvent['event'],
  at: e.at,
  details: JSON.parse(e.details),
})

/** What a token's detail shows besides its row, each shown part with how many there are in all. */
export interface TokenDetailParts {
  /** Its largest holdings. */
  holdings: { rows: Holding[]; total: number }
  /** Its latest history events (oldest first among them). */
  history: { rows: Selectable<TokenEventsTable>[]; total: number }
  /** Its frozen holders. */
  frozenHolders: { rows: string[]; total: number }
}

/** The token with its largest holdings, its latest history events and its frozen holders. */
export function tokenDetailFromRow(
  row: Selectable<TokensTable>,
  { holdings, history, frozenHolders }: TokenDetailParts,
): TokenDetail {
  return {
    ...tokenFromRow(row, holdings.rows, holdings.total),
    governance_history: history.rows.map(eventFromRow),
    governance_history_total: history.total,
    frozen_holders: frozenHolders.rows,
    frozen_holders_total: frozenHolders.total,
  }
}
