import type { GovernanceEvent } from '../../../../src/contract/rwa.js'
import type { AppContext } from '../../../pipeline/context.js'
import type { Executor } from '../../../platform/db/queries.js'
import { insertTokenEvent } from './queries.js'

/*
 * A token's governance history: every change to a token is recorded as an event in the same
 * transaction as the change, by whichever aggregate made it (tokenization, a transfer, an agent's
 * operation, a revocation). Events of an operation carry `actor_key_id`, the key that did it.
 */

/** Appends an event to a token's governance history (inside the caller's transaction); returns the row. */
export async function recordTokenEvent(
  ctx: AppContext,
  db: Executor,
  orgId: string,
  tokenId: string,
  event: GovernanceEvent['event'],
  at: string,
  details: Record<string, unknown>,
) {
  const row = {
    event_id: ctx.ids.next('evt'),
    org_id: orgId,
    token_id: tokenId,
    event,
    at,
    details: JSON.stringify(details),
  }
  await insertTokenEvent(db, row)
  return row
}
