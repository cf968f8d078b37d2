import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { insertAuditEvents } from '../../../server/audit/queries.js'
import { MAX_STATEMENT_PARAMETERS } from '../../../server/db/queries.js'
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
afterEach(() => h.close())

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
})
