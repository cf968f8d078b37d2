import { sql } from 'kysely'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { flatCosts } from '../../../server/platform/db/migrations/0007-flat-costs.js'
import { statuses } from '../../support/concurrency.js'
import { createHarness, type Harness } from '../../support/harness.js'
import {
  buildWorld,
  expectStatus,
  historyEvents,
  OWNER,
  RECIPIENT,
  transferBody,
  type World,
} from '../../support/governance.js'

/*
 * The counters of migration 0007 (transfer_counts, token_event_counts, transfer_daily_volumes) stand in
 * for COUNT(*) and SUM over an organization's history: every figure they give must be the one the
 * rows give, for every filter, through every write path, and after the migration's backfill.
 */

let h: Harness
let w: World
beforeEach(async () => {
  h = await createHarness()
  w = await buildWorld(h)
})
afterEach(() => h.close())

const NOBODY = 'did:web:lion:nobody'
const tok = (path = '') => `/console/rwa/tokens/${w.tokenId}${path}`

/** Every transfer a list's filters select, paged through to the end; with the total of each page. */
async function listAll(query: Record<string, string>) {
  const ids: string[] = []
  const items: Array<Record<string, string>> = []
  const totals = new Set<number>()
  let cursor: string | undefined
  do {
    const page = await expectStatus(
      h.get('/console/rwa/transfers', { query: { ...query, limit: 2, cursor } }),
      200,
    )
    ids.push(...page.transfers.map((t: { transfer_id: string }) => t.transfer_id))
    items.push(...page.transfers)
    totals.add(page.total)
    cursor = page.next_cursor ?? undefined
  } while (cursor)
  return { ids, items, totals: [...totals] }
}

const FILTERS = (tokenId: string): Record<string, string>[] => [
  {},
  { status: 'approved' },
  { status: 'rejected' },
  { status: 'forced' },
  { jurisdiction: 'US' },
  { jurisdiction: 'SG' },
  { jurisdiction: 'JP' },
  { token_id: tokenId },
  { token_id: 'tok_none' },
  { token_id: tokenId, status: 'approved', jurisdiction: 'SG' },
  { status: 'rejected', jurisdiction: 'US' },
]

/** Approved, rejected, within one jurisdiction (US → US, counted once under US) and forced. */
async function mixedTransfers() {
  for (const amount of [10, 20])
    await expectStatus(h.post('/console/rwa/transfers', transferBody(w.tokenId, amount)), 201)
  const rejected = await expectStatus(
    h.post('/console/rwa/transfers', transferBody(w.tokenId, 5, { recipient_did: NOBODY })),
    201,
  )
  expect(rejected.status).toBe('rejected')
  const local = await expectStatus(
    h.post('/console/rwa/transfers', transferBody(w.tokenId, 7, { to_jurisdiction: 'US' })),
    201,
  )
  expect(local.to_jurisdiction).toBe('US')
  const forced = await expectStatus(
    h.post(tok('/forced-transfer'), {
      from_did: OWNER,
      from_jurisdiction: 'US',
      to_did: RECIPIENT,
      to_jurisdiction: 'SG',
      amount: 3,
      reason: 'court order',
    }),
    201,
  )
  expect(forced.status).toBe('forced')
}

async function expectExactTotals() {
  const all = (await listAll({})).items
  for (const filter of FILTERS(w.tokenId)) {
    const { ids, totals } = await listAll(filter)
    expect({ filter, totals }).toEqual({ filter, totals: [ids.length] })
    // The same transfers, newest first, as filtering the whole list by hand gives.
    const { jurisdiction, ...equal } = filter
    const expected = all.filter(
      (t) =>
        Object.entries(equal).every(([k, v]) => t[k] === v) &&
        (jurisdiction === undefined ||
          t.from_jurisdiction === jurisdiction ||
          t.to_jurisdiction === jurisdiction),
    )
    expect({ filter, ids }).toEqual({ filter, ids: expected.map((t) => t.transfer_id) })
  }
  const detail = await expectStatus(h.get(tok()), 200)
  expect(detail.governance_history_total).toBe((await historyEvents(h, w.tokenId)).length)
}

describe('exact totals from counters (docs/performance.md, "Cost as the data grows")', () => {
  it('a transfers list total is the number of transfers its filters select, through every write path', async () => {
    await mixedTransfers()
    expect((await listAll({})).ids).toHaveLength(5)
    await expectExactTotals()
  })

  it('the history total counts every event, including the agent operations', async () => {
    await expectStatus(h.post(tok('/pause'), {}), 200)
    await expectStatus(h.post(tok('/unpause'), {}), 200)
    await mixedTransfers()
    const page = await expectStatus(h.get(tok('/history'), { query: { limit: 1 } }), 200)
    expect(page.total).toBe((await historyEvents(h, w.tokenId)).length)
    await expectExactTotals()
  })

  it('concurrent transfers through two instances are each counted once, and none answers 500', async () => {
    const other = await h.newInstance()
    const sends = Array.from({ length: 24 }, (_, i) =>
      (i % 2 === 0 ? h : other).post(
        '/console/rwa/transfers',
        transferBody(w.tokenId, 1, i % 3 === 0 ? { recipient_did: NOBODY } : {}),
      ),
    )
    const responses = await Promise.all(sends)
    expect(statuses(responses)).toEqual({ 201: 24 })
    await mixedTransfers()
    await expectExactTotals()
    expect((await listAll({ status: 'rejected' })).ids).toHaveLength(9)
  })

  it('the migration backfills the counters from the rows it finds', async () => {
    await mixedTransfers()
    for (const table of ['transfer_counts', 'token_event_counts', 'transfer_daily_volumes']) {
      await sql`drop table ${sql.table(table)}`.execute(h.ctx.db)
    }
    await flatCosts.up(h.ctx.db)
    await expectExactTotals()
    const volume = await h.ctx.db.selectFrom('transfer_daily_volumes').selectAll().execute()
    expect(volume.map((v) => [v.sender_did, v.day, Number(v.volume)])).toEqual([[OWNER, '2026-01-15', 37]])
  })
})

describe('daily volume per holder from the day counter', () => {
  it('counts the approved units of the UTC day only, and starts again the next day', async () => {
    await expectStatus(h.request('PUT', tok('/rules'), { body: { daily_volume_per_holder: 30 } }), 200)
    const send = async (amount: number, extra: Record<string, unknown> = {}) =>
      (await expectStatus(h.post('/console/rwa/transfers', transferBody(w.tokenId, amount, extra)), 201))
        .status
    expect(await send(20)).toBe('approved')
    // A rejected transfer moves nothing and adds nothing to the day's volume.
    expect(await send(10, { recipient_did: NOBODY })).toBe('rejected')
    expect(await send(10)).toBe('approved')
    expect(await send(1)).toBe('rejected')
    h.clock.set('2026-01-16T00:00:00.000Z')
    expect(await send(30)).toBe('approved')
    expect(await send(1)).toBe('rejected')
  })
})
