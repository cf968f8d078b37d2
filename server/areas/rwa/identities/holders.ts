import type {
  Holder,
  IdentityCategory,
  ListHoldersQuery,
  ListHoldersResponse,
} from '../../../../src/contract/identities.js'
import type { Principal } from '../../../pipeline/auth/principal.js'
import type { AppContext } from '../../../pipeline/context.js'
import { ApiError } from '../../../platform/errors.js'
import { tokenOr404 } from '../tokens/queries.js'
import { type HolderDidRow, holderGroupsPage } from './queries.js'

/*
 * A token's holders grouped by identity (docs/identities.md, "Holders"): each identity holding units
 * through any of its DIDs, with its total and each DID's units over every jurisdiction; then each DID
 * of no identity, alone. A page at a time, in the order of the groups.
 */

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/

/** Reads a cursor: base64url of a group key (`1<identity_id>` or `2<did>`); anything else is a 400. */
function decodeCursor(cursor: string | undefined): string | undefined {
  if (cursor === undefined) return undefined
  const key = Buffer.from(cursor, 'base64url').toString('utf8')
  if (
    Buffer.from(key).toString('base64url') === cursor &&
    /^[12]./s.test(key) &&
    !CONTROL_CHARACTER.test(key)
  )
    return key
  throw new ApiError('invalid_cursor', 'Invalid query: cursor: not a cursor this list returned', {
    errors: [{ path: 'cursor', message: 'not a cursor this list returned' }],
  })
}

/** The groups of `keys`, in that order, from their DIDs' rows. */
export function holdersOf(keys: readonly string[], rows: readonly HolderDidRow[]): Holder[] {
  return keys.map((key) => {
    const mine = rows.filter((r) => r.group_key === key)
    const first = mine[0]
    return {
      identity_id: first?.identity_id ?? null,
      country: first?.country ?? null,
      category: (first?.category ?? null) as IdentityCategory | null,
      total: mine.reduce((sum, r) => sum + r.amount, 0),
      dids: mine.map((r) => ({ holder_did: r.holder_did, amount: r.amount })),
    }
  })
}

export async function listHolders(
  ctx: AppContext,
  principal: Principal,
  tokenId: string,
  query: ListHoldersQuery,
): Promise<ListHoldersResponse> {
  const after = decodeCursor(query.cursor)
  await tokenOr404(ctx.db, principal.orgId, tokenId)
  const page = await holderGroupsPage(ctx.db, principal.orgId, tokenId, query.limit, after)
  const last = page.keys.at(-1)
  return {
    holders: holdersOf(page.keys, page.rows),
    total: page.total,
    next_cursor: page.more && last !== undefined ? Buffer.from(last).toString('base64url') : null,
  }
}
