import { type Insertable, sql } from 'kysely'
import { compiledInsert, compiledOnce } from '../../../platform/db/compiled-query.js'
import type { ListTransfersQuery } from '../../../../src/contract/rwa.js'
import { type Executor, ownedRecord, type Page, whereEqual } from '../../../platform/db/queries.js'
import type { ProofsTable, TransfersTable } from '../../../platform/db/schema.js'
import { type TransferSummaryRow, transferSummaryColumns } from './from-row.js'

/** Every query of transfers and their proofs; each filters by org_id first. */

export const findTransfer = ownedRecord('transfers', 'transfer_id')

export const findProof = ownedRecord('proofs', 'proof_id')

/** A list's filters, in the order their values are passed to its compiled statements. */
const FILTERS = ['token_id', 'status', 'jurisdiction'] as const
type Filter = (typeof FILTERS)[number]

/** The filters a query sets, and their values in the same order. */
function filtersOf(query: Pick<ListTransfersQuery, Filter>): { names: Filter[]; values: string[] } {
  const names = FILTERS.filter((name) => query[name] !== undefined && query[name] !== '')
  return { names, values: names.map((name) => query[name]!) }
}

/**
 * A page of transfers as a list shows them (transferSummaryColumns: not the checks, the bulk of a
 * row), newest first; the exact total from the counters (countTransfers). With a
 * jurisdiction, the transfers from it and those to it are each read newest first through their own
 * index (transfers_from_idx, transfers_to_idx), a page's worth of each, and merged (a transfer within
 * the jurisdiction is in both and kept once): an `or` of the two would walk every transfer of the
 * organization until it found a page of matches.
 */
export async function listTransfers(
  db: Executor,
  orgId: string,
  query: ListTransfersQuery,
): Promise<Page<TransferSummaryRow>> {
  const total = await countTransfers(db, orgId, query)
  const { names, values } = filtersOf(query)
  const after = query.cursor !== undefined
  const args = [orgId, ...values, ...(after ? [query.cursor] : []), query.limit + 1]
  const found = await pageStatement(names, after)(db, ...args)
  const more = found.length > query.limit
  const rows = more ? found.slice(0, query.limit) : found
  return { rows, total, next_cursor: more ? rows.at(-1)!.transfer_id : null }
}

type Statement<Row> = (db: Executor, ...args: unknown[]) => Promise<Row[]>

/**
 * The page's statement for one shape of list (its filters, a cursor or not), compiled once
 * (`compiledOnce`): kysely built and compiled the list's query on every request. Arguments: the
 * organization, the filters' values (filtersOf), the cursor if any, the limit.
 */
const pageStatement = shaped((names: Filter[], after: boolean): Statement<TransferSummaryRow> => {
  const build = (db: Executor, ...args: unknown[]) => {
    const [orgId, ...rest] = args as [string, ...string[]]
    const limit = rest.pop() as unknown as number
    const cursor = after ? rest.pop() : undefined
    const value = (name: Filter) => rest[names.indexOf(name)]
    const filtered = () => {
      let rows = whereEqual(db.selectFrom('transfers').where('org_id', '=', orgId), {
        token_id: value('token_id'),
        status: value('status'),
      })
      if (cursor !== undefined) rows = rows.where('transfer_id', '<', cursor)
      return rows
    }
    const j = value('jurisdiction')
    if (j === undefined) {
      return filtered().select(transferSummaryColumns).orderBy('transfer_id', 'desc').limit(limit)
    }
    const side = (column: 'from_jurisdiction' | 'to_jurisdiction') =>
      db
        .selectFrom(
          filtered()
            .where(column, '=', j)
            .select(transferSummaryColumns)
            .orderBy('transfer_id', 'desc')
            .limit(limit)
            .as(column),
        )
        .selectAll()
    return db
      .selectFrom(side('from_jurisdiction').union(side('to_jurisdiction')).as('matches'))
      .selectAll()
      .orderBy('transfer_id', 'desc')
      .limit(limit)
  }
  return compiledOnce(build, 1 + names.length + (after ? 1 : 0) + 1) as Statement<TransferSummaryRow>
})

/**
 * How many transfers match a list's filters: the sum of the organization's counter rows (one per token,
 * status and route) that the filters select. A transfer is in exactly one counter row, so a
 * jurisdiction that is both its source and its target counts it once, as the list does.
 */
export async function countTransfers(
  db: Executor,
  orgId: string,
  query: Pick<ListTransfersQuery, Filter>,
): Promise<number> {
  const { names, values } = filtersOf(query)
  const [row] = await countStatement(names, false)(db, orgId, ...values)
  return Number(row?.n ?? 0)
}

/** The count's statement for one set of filters, compiled once; arguments as pageStatement's. */
const countStatement = shaped((names: Filter[]): Statement<{ n: number | string | null }> => {
  const build = (db: Executor, ...args: unknown[]) => {
    const [orgId, ...rest] = args as [string, ...string[]]
    const value = (name: Filter) => rest[names.indexOf(name)]
    let counts = whereEqual(db.selectFrom('transfer_counts').where('org_id', '=', orgId), {
      token_id: value('token_id'),
      status: value('status'),
    })
    const j = value('jurisdiction')
    if (j !== undefined)
      counts = counts.where((eb) => eb.or([eb('from_jurisdiction', '=', j), eb('to_jurisdiction', '=', j)]))
    return counts.select((eb) => eb.fn.sum<number>('n').as('n'))
  }
  return compiledOnce(build, 1 + names.length) as Statement<{ n: number | string | null }>
})

/** One statement per shape of query, made on its first use and kept (there are at most 16). */
function shaped<Row>(
  make: (names: Filter[], after: boolean) => Statement<Row>,
): (names: Filter[], after: boolean) => Statement<Row> {
  const made = new Map<string, Statement<Row>>()
  return (names, after) => {
    const key = `${names.join(',')}|${after}`
    let statement = made.get(key)
    if (statement === undefined) {
      statement = make(names, after)
      made.set(key, statement)
    }
    return statement
  }
}

/** The largest daily volume kept: the contract's largest integer (Number.MAX_SAFE_INTEGER). */
const MAX_VOLUME = Number.MAX_SAFE_INTEGER

/**
 * Stores a transfer and, in the same transaction, counts it (transfer_counts) and, when approved, adds
 * its units to the sender's volume of the day (transfer_daily_volumes). Upserts that add: concurrent
 * writers never lose a count.
 */
export async function insertTransfer(db: Executor, row: Insertable<TransfersTable>): Promise<void> {
  await insertTransferRow(db, row)
  await countTransfer(db, row.org_id, row.token_id, row.status, row.from_jurisdiction, row.to_jurisdiction)
  if (row.status === 'approved') {
    await addDailyVolume(db, row.token_id, row.sender_did, row.created_at.slice(0, 10), row.amount)
  }
}

/*
 * A transfer's writes, compiled once (compiledOnce, compiledInsert): kysely would otherwise build and
 * compile each on every transfer.
 */
const insertTransferRow = compiledInsert<Insertable<TransfersTable>>('transfers', [
  'transfer_id',
  'org_id',
  'token_id',
  'from_jurisdiction',
  'to_jurisdiction',
  'sender_did',
  'recipient_did',
  'amount',
  'status',
  'proof_id',
  'created_at',
  'reason',
  'compliance_summary',
  'compliance_checks',
])

const countTransfer = compiledOnce(
  (db: Executor, orgId: string, tokenId: string, status: string, from: string, to: string) =>
    db
      .insertInto('transfer_counts')
      .values({
        org_id: orgId,
        token_id: tokenId,
        status,
        from_jurisdiction: from,
        to_jurisdiction: to,
        n: 1,
      })
      .onConflict((oc) =>
        oc
          .columns(['org_id', 'token_id', 'status', 'from_jurisdiction', 'to_jurisdiction'])
          .doUpdateSet((eb) => ({ n: eb('transfer_counts.n', '+', eb.ref('excluded.n')) })),
      ),
)

const addDailyVolume = compiledOnce(
  (db: Executor, tokenId: string, senderDid: string, day: string, amount: number) =>
    db
      .insertInto('transfer_daily_volumes')
      .values({ token_id: tokenId, sender_did: senderDid, day, volume: amount })
      .onConflict((oc) =>
        // Saturates at the contract's largest integer: a day's volume past 2^53 - 1 (several transfers
        // of large amounts) is over any daily limit a rule can state, and stays readable on PostgreSQL,
        // whose int8 parser refuses what a JavaScript number cannot hold exactly.
        oc.columns(['token_id', 'sender_did', 'day']).doUpdateSet(() => ({
          volume: sql<number>`case when transfer_daily_volumes.volume > ${MAX_VOLUME} - excluded.volume then ${MAX_VOLUME} else transfer_daily_volumes.volume + excluded.volume end`,
        })),
      ),
)

export const insertProof: (db: Executor, row: Insertable<ProofsTable>) => Promise<void> = compiledInsert<
  Insertable<ProofsTable>
>('proofs', ['proof_id', 'org_id', 'transfer_id', 'facts', 'digest', 'jws', 'kid', 'issuers'])

/** The sender's approved volume of a token on a UTC day (`YYYY-MM-DD`), kept by insertTransfer. */
export async function approvedVolumeOn(
  db: Executor,
  tokenId: string,
  senderDid: string,
  day: string,
): Promise<number> {
  const [row] = await volumeQuery(db, tokenId, senderDid, day)
  return Number(row?.volume ?? 0)
}

const volumeQuery = compiledOnce((db: Executor, tokenId: string, senderDid: string, day: string) =>
  db
    .selectFrom('transfer_daily_volumes')
    .select('volume')
    .where('token_id', '=', tokenId)
    .where('sender_did', '=', senderDid)
    .where('day', '=', day),
)
