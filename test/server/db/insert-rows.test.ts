import { QueryCreator, sql } from 'kysely'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { insertAuditEvents } from '../../../server/pipeline/audit/queries.js'
import { insertRows, MAX_STATEMENT_PARAMETERS } from '../../../server/platform/db/queries.js'
import { createHarness, type Harness } from '../../support/harness.js'

/*
 * One write may record any number of rows (issue 22: lists chunked under any parameter limit): more
 * audit events than one INSERT can bind (11 columns × 7,000 rows = 77,000 parameters, past SQLite's
 * 32,766 and PostgreSQL's 65,535) are written whole, on either database.
 */

let h: Harness
beforeEach(async () => {
  h = await createHarness()
})
afterEach(() => {
  vi.restoreAllMocks()
  return h.close()
})

describe('insertRows', () => {
  it('writes more rows than one statement can bind, all of them, in one transaction', async () => {
    const ROWS = 7_000
    const rows = Array.from({ length: ROWS }, (_, i) => ({
      event_id: `aud_bulk${String(i).padStart(18, '0')}`,
      org_id: 'admin',
      at: '2026-01-15T12:00:00.000Z',
      actor: 'key:key_bulk',
      actor_key_id: null,
      request_id: null,
      action: 'key.created',
      target_type: 'key',
      target_id: `key_${i}`,
      changes: null,
      log_index: null,
    }))
    expect(ROWS * Object.keys(rows[0]!).length).toBeGreaterThan(2 * MAX_STATEMENT_PARAMETERS)
    await h.ctx.db.transaction().execute((trx) => insertAuditEvents(trx, rows))
    const { n } = await h.ctx.db
      .selectFrom('audit_events')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('event_id', 'like', 'aud_bulk%')
      .executeTakeFirstOrThrow()
    expect(Number(n)).toBe(ROWS)
  }, 60_000)

  it('writes a few rows by their columns, whatever their order, a value left out or an expression', async () => {
    const row = (i: number) => ({
      event_id: `aud_few${i}`,
      org_id: 'admin',
      at: '2026-01-15T12:00:00.000Z',
      actor: 'key:key_few',
      actor_key_id: null,
      request_id: null,
      action: 'key.created',
      target_type: 'key',
      target_id: `key_${i}`,
      changes: `{"n":${i}}`,
      log_index: 900_000 + i,
    })
    const { event_id, ...rest } = row(2)
    await h.ctx.db.transaction().execute(async (trx) => {
      // The same columns twice: the second insert runs what the first compiled, with its own values.
      await insertRows(trx, 'audit_events', [row(0), row(1)])
      await insertRows(trx, 'audit_events', [row(3), row(4)])
      // The same columns in another order; one left undefined (its default: null); one an expression.
      await insertRows(trx, 'audit_events', [
        { ...rest, event_id },
        { ...row(5), log_index: undefined },
        { ...row(6), changes: sql<string>`'{"n":' || ${'6'} || '}'` as unknown as string },
      ])
    })
    const rows = await h.ctx.db
      .selectFrom('audit_events')
      .select(['event_id', 'target_id', 'changes', 'log_index'])
      .where('event_id', 'like', 'aud_few%')
      .orderBy('event_id')
      .execute()
    expect(rows).toEqual(
      [0, 1, 2, 3, 4, 5, 6].map((i) => ({
        event_id: `aud_few${i}`,
        target_id: `key_${i}`,
        changes: `{"n":${i}}`,
        log_index: i === 5 ? null : 900_000 + i,
      })),
    )
  })

  it('writes many rows by statements compiled once per chunk of 64, 32, ... rows; rows unlike the first by kysely', async () => {
    const row = (i: number) => ({
      event_id: `aud_many${String(i).padStart(4, '0')}`,
      org_id: 'admin',
      at: '2026-01-15T12:00:00.000Z',
      actor: 'key:key_many',
      actor_key_id: null,
      request_id: null,
      action: 'key.created',
      target_type: 'key',
      target_id: `key_${i}`,
      changes: null,
      log_index: 800_000 + i,
    })
    const built: string[] = []
    const original = QueryCreator.prototype.insertInto
    vi.spyOn(QueryCreator.prototype, 'insertInto').mockImplementation(function (
      this: QueryCreator<never>,
      table: string,
    ) {
      built.push(table)
      return original.call(this, table as never)
    })
    await h.ctx.db.transaction().execute(async (trx) => {
      // The first 301 rows compile their chunks (64 × 4, 32, 8, 4, 1).
      await insertRows(
        trx,
        'audit_events',
        Array.from({ length: 301 }, (_, i) => row(i)),
      )
      built.length = 0
      // 301 more: the same chunks, none built by kysely.
      await insertRows(
        trx,
        'audit_events',
        Array.from({ length: 301 }, (_, i) => row(301 + i)),
      )
      expect(built).toEqual([])
      // 200 whose 70th leaves a column to its default: the first chunk compiled, kysely the rest.
      const unlike = Array.from({ length: 200 }, (_, i) => row(602 + i))
      unlike[69] = { ...unlike[69]!, log_index: undefined as unknown as number }
      await insertRows(trx, 'audit_events', unlike)
      expect(built).toEqual(['audit_events'])
    })
    const rows = await h.ctx.db
      .selectFrom('audit_events')
      .select(['event_id', 'log_index'])
      .where('event_id', 'like', 'aud_many%')
      .orderBy('event_id')
      .execute()
    expect(rows).toEqual(
      Array.from({ length: 802 }, (_, i) => ({
        event_id: `aud_many${String(i).padStart(4, '0')}`,
        log_index: i === 671 ? null : 800_000 + i,
      })),
    )
  })
})
