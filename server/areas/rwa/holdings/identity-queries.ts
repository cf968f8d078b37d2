import { compiledOnce } from '../../../platform/db/compiled-query.js'
import type { Executor } from '../../../platform/db/queries.js'

/*
 * Holdings read by investor (docs/identities.md, "How the rules read identities"): what an identity
 * holds of a token over all its DIDs, and how many identities of a country hold it. Read in a
 * transfer's transaction after the token's row lock, so no other transfer of the token moves units
 * between the read and the write.
 */

/** Units of the token that `dids` (one investor's DIDs) hold together, across jurisdictions. */
export async function totalOfDids(db: Executor, tokenId: string, dids: readonly string[]): Promise<number> {
  if (dids.length === 0) return 0
  const [row] = await totalOfDidsQuery(db, tokenId, [...new Set(dids)])
  return Number(row?.total ?? 0)
}

/** Compiled once per number of DIDs: `max_ownership_percent` asks it of every transfer. */
const totalOfDidsQuery = compiledOnce((db: Executor, tokenId: string, dids: string[]) =>
  db
    .selectFrom('holdings')
    .select((eb) => eb.fn.sum<number>('amount').as('total'))
    .where('token_id', '=', tokenId)
    .where('holder_did', 'in', dids),
)

/**
 * How many identities of `country` (of the organization) hold a non-zero amount of the token; a DID
 * of no identity counts in no country. Holdings of zero units do not exist (adjustHolding deletes them).
 */
export async function holderIdentitiesIn(
  db: Executor,
  orgId: string,
  tokenId: string,
  country: string,
): Promise<number> {
  const [row] = await holderIdentitiesInQuery(db, orgId, tokenId, country)
  return Number(row?.n ?? 0)
}

/** Compiled once: `max_holders_per_country` asks it of every transfer that adds a holder identity. */
const holderIdentitiesInQuery = compiledOnce(
  (db: Executor, orgId: string, tokenId: string, country: string) =>
    db
      .selectFrom('identities as i')
      .innerJoin('identity_dids as d', (j) =>
        j.onRef('d.org_id', '=', 'i.org_id').onRef('d.identity_id', '=', 'i.identity_id'),
      )
      .where('i.org_id', '=', orgId)
      .where('i.country', '=', country)
      .where((eb) =>
        eb.exists(
          eb
            .selectFrom('holdings as h')
            .select('h.holder_did')
            .where('h.token_id', '=', tokenId)
            .whereRef('h.holder_did', '=', 'd.did'),
        ),
      )
      .select((eb) => eb.fn.count<number>('i.identity_id').distinct().as('n')),
)
