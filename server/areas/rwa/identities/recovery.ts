import type { AppContext } from '../../../pipeline/context.js'
import type { Executor } from '../../../platform/db/queries.js'
import { constraintViolationOf } from '../../../platform/errors.js'
import {
  deleteIdentityDids,
  didsOfIdentity,
  identitiesOfDids,
  replaceIdentityDid,
  updateIdentity,
} from './queries.js'
import { didInUse } from './refusals.js'

/**
 * A recovery's move of identity (docs/identities.md, "Recovery"): the lost DID's place in its identity
 * goes to the new DID, in the recovery's transaction. The new DID already of that identity: the lost one
 * just leaves it. The new DID of another identity: 409 `did_in_use` (two investors are not merged by a
 * recovery). The lost DID of no identity: nothing changes. Answers the identity's id, or null.
 */
export async function moveIdentityOnRecovery(
  ctx: AppContext,
  trx: Executor,
  orgId: string,
  lostDid: string,
  newDid: string,
  now: string,
): Promise<string | null> {
  const found = await identitiesOfDids(trx, orgId, [lostDid, newDid])
  const identity = found.get(lostDid)
  if (!identity) return null
  const id = identity.identity_id
  const other = found.get(newDid)
  if (other && other.identity_id !== id) throw didInUse(newDid, other.identity_id)
  const before = await didsOfIdentity(trx, orgId, id)
  if (other) await deleteIdentityDids(trx, orgId, id, [lostDid])
  else {
    await replaceIdentityDid(trx, orgId, lostDid, newDid, now).catch((error) => {
      // Another write claimed the new DID at the same moment.
      throw constraintViolationOf(error) === 'unique' ? didInUse(newDid, null) : error
    })
  }
  await updateIdentity(trx, orgId, id, { updated_at: now })
  ctx.record({
    orgId,
    action: 'identity.dids_changed',
    target: { type: 'identity', id },
    before: { dids: before },
    after: {
      dids: await didsOfIdentity(trx, orgId, id),
      added: other ? [] : [newDid],
      removed: [lostDid],
      recovery: true,
    },
  })
  return id
}
