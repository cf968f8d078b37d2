import type { Selectable } from 'kysely'
import type { GovernanceEvent, Holding, Token, TokenDetail } from '../../../src/contract/rwa.js'
import type { HoldingsTable, TokenEventsTable, TokensTable } from '../../db/schema.js'

/** The API record of a stored token, with its holdings among `holdings` (those of other tokens are skipped). */
export function tokenFromRow(row: Selectable<TokensTable>, holdings: Selectable<HoldingsTable>[]): Token {
  return {
    token_id: row.token_id,
    credential_id: row.credential_id,
    jurisdiction: row.jurisdiction,
    owner_did: row.owner_did,
    symbol: row.symbol,
    total_supply: row.total_supply,
    status: row.status as Token['status'],
    holdings: holdings
      .filter((h) => h.token_id === row.token_id)
      .map((h): Holding => ({ holder_did: h.holder_did, jurisdiction: h.jurisdiction, amount: h.amount })),
    created_at: row.created_at,
  }
}

/** The token with its governance history, oldest first. */
export function tokenDetailFromRow(
  row: Selectable<TokensTable>,
  holdings: Selectable<HoldingsTable>[],
  events: Selectable<TokenEventsTable>[],
): TokenDetail {
  return {
    ...tokenFromRow(row, holdings),
    governance_history: events.map(
      (e): GovernanceEvent => ({
        event: e.event as GovernanceEvent['event'],
        at: e.at,
        details: JSON.parse(e.details),
      }),
    ),
  }
}
