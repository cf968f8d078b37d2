import type { GovernanceEvent } from '../../../src/contract/rwa.js'
import type { AppContext } from '../../context.js'
import type { Executor } from '../../db/queries.js'
import { findTokenByCredential, insertTokenEvent, setTokenStatus } from './queries.js'

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

/** A revoked credential freezes the token it backs, if any, with an event in the token's history. */
export async function freezeTokenOfRevokedCredential(
  ctx: AppContext,
  db: Executor,
  orgId: string,
  credentialId: string,
  revocation: { reason: string | null; at: string; actorKeyId: string },
): Promise<void> {
  // The token's lock: a transfer of it in flight finishes first (or waits and then sees it frozen).
  const token = await findTokenByCredential(db, credentialId, 'update')
  if (!token) return
  await setTokenStatus(db, token.token_id, 'frozen')
  await recordTokenEvent(ctx, db, orgId, token.token_id, 'credential_revoked', revocation.at, {
    credential_id: credentialId,
    reason: revocation.reason,
    token_status: 'frozen',
    actor_key_id: revocation.actorKeyId,
  })
}
