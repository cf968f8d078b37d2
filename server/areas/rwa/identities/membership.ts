import type { ChangeIdentityDidsRequest } from '../../../../src/contract/identities.js'
import { MAX_IDENTITY_DIDS } from '../../../../src/contract/identities.js'
import type { FieldError } from '../../../../src/contract/errors.js'

/*
 * The rules of an identity's DIDs, free of HTTP and SQL (docs/identities.md): a DID is in at most one
 * identity; a change removes only the identity's own DIDs and leaves it at least one.
 */

/** The first of `dids` (in order) that is in an identity other than `identityId`, and that identity. */
export function firstClaimedElsewhere(
  identities: ReadonlyMap<string, { identity_id: string }>,
  dids: readonly string[],
  identityId: string,
): { did: string; identity_id: string } | undefined {
  for (const did of dids) {
    const other = identities.get(did)
    if (other && other.identity_id !== identityId) return { did, identity_id: other.identity_id }
  }
  return undefined
}

/** What a change of DIDs does to an identity having `current`: or the field at fault. */
export function didsChange(
  current: readonly string[],
  input: ChangeIdentityDidsRequest,
): { dids: string[]; added: string[]; removed: string[]; problem?: FieldError } {
  const have = new Set(current)
  const stray = input.remove.filter((did) => !have.has(did))
  const added = input.add.filter((did) => !have.has(did))
  const removing = new Set(input.remove)
  const dids = [...current.filter((did) => !removing.has(did)), ...added]
  const result = { dids, added, removed: [...input.remove] }
  if (stray.length > 0) {
    return {
      ...result,
      problem: {
        path: 'remove',
        message: `${stray.join(', ')} ${stray.length === 1 ? 'is' : 'are'} not a DID of the identity`,
      },
    }
  }
  if (dids.length === 0)
    return { ...result, problem: { path: 'remove', message: 'an identity keeps at least one DID' } }
  if (dids.length > MAX_IDENTITY_DIDS) {
    return {
      ...result,
      problem: { path: 'add', message: `an identity has at most ${MAX_IDENTITY_DIDS} DIDs` },
    }
  }
  return result
}
