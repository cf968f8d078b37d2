import { randomBytes } from 'node:crypto'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { utcDate } from '../../../server/platform/clock.js'
import { eventLeafHash } from '../../../src/tlog/leaf.js'
import { rootOfFrontier, verifyInclusion } from '../../../src/tlog/merkle.js'
import { verifyCheckpoint } from '../../../src/tlog/note.js'
import { buildWorld, expectStatus, SG, US } from '../../support/governance.js'
import { createHarness, type Harness } from '../../support/harness.js'

/*
 * Counters past PostgreSQL's 32-bit `integer` (2^31 - 1), which the contract's integers allow
 * (migration 0017): each is seeded just below the bound through the test's own database access (two
 * billion requests take a while), then pushed past it over HTTP, on SQLite and PostgreSQL alike.
 */

const INT32_MAX = 2 ** 31 - 1

let h: Harness
beforeEach(async () => {
  h = await createHarness()
})
afterEach(() => h.close())

describe('a day of usage past 2^31 - 1', () => {
  it('keeps counting requests, DIDs created and skills registered, and serves them exactly', async () => {
    const acme = await h.createOrg('acme', { tier: 'enterprise' }) // no daily limit
    await h.ctx.meter.flush()
    const today = utcDate(h.clock.now())
    await h.ctx.db.deleteFrom('usage_daily').where('org_id', '=', 'acme').execute()
    await h.ctx.db
      .insertInto('usage_daily')
      .values({
        org_id: 'acme',
        date: today,
        request_count: INT32_MAX,
        dids_created: INT32_MAX,
        skills_registered: INT32_MAX,
      })
      .execute()

    // Nine requests: among them a credential to a new owner DID and a tokenization (a skill), each
    // counted in the request's own transaction (on PostgreSQL's 32-bit integer, a 500).
    await buildWorld(h, acme.key)
    const usage = await expectStatus(
      h.get('/console/billing/usage/acme', { key: acme.key, query: { days: 1 } }),
      200,
    )
    expect(usage.daily_usage).toEqual([
      {
        date: today,
        request_count: INT32_MAX + 10, // and this one: the meter's flush adds them past the bound
        dids_created: INT32_MAX + 1,
        skills_registered: INT32_MAX + 1,
      },
    ])
    expect(usage.totals).toEqual({
      total_requests: INT32_MAX + 10,
      total_dids_created: INT32_MAX + 1,
      total_skills_registered: INT32_MAX + 1,
    })
    expect(h.loggedErrors).toEqual([])
  })
})

describe('a verifiable log past 2^31 - 1 events', () => {
  it('appends at log_index 2^31 and beyond, and proves the new events in its signed checkpoint', async () => {
    const acme = await h.createOrg('acme', { tier: 'enterprise' })
    const key = { key: acme.key }
    // A log of 2^31 - 1 events: a full subtree of each size 2^30 … 1 (its frontier), random but
    // consistent, so that the next appends complete every one of them into the subtree of 2^31 events.
    const frontier = Array.from({ length: 31 }, () => randomBytes(32))
    await h.ctx.db.deleteFrom('audit_logs').where('org_id', '=', 'acme').execute()
    await h.ctx.db
      .insertInto('audit_logs')
      .values({
        org_id: 'acme',
        size: INT32_MAX,
        root: rootOfFrontier(frontier).toString('hex'),
        frontier: frontier.map((hash) => hash.toString('hex')).join(','),
      })
      .execute()

    await expectStatus(h.post('/console/rwa/jurisdictions', US, key), 201)
    await expectStatus(h.post('/console/rwa/jurisdictions', SG, key), 201)

    const checkpoint = await expectStatus(h.get('/console/audit/log/checkpoint', key), 200)
    expect(checkpoint.tree_size).toBe(INT32_MAX + 2)
    const signed = verifyCheckpoint(checkpoint.checkpoint, checkpoint.log_key.vkey)
    expect(signed.size).toBe(INT32_MAX + 2)

    const entries = await expectStatus(
      h.get('/console/audit/log/entries', { ...key, query: { start: INT32_MAX, end: INT32_MAX + 2 } }),
      200,
    )
    expect(entries.entries.map((e: { log_index: number }) => e.log_index)).toEqual([INT32_MAX, INT32_MAX + 1])
    // The last event's proof is the subtree of the first 2^31 events, stored when the first append
    // completed it.
    const last = entries.entries[1]
    const proof = await expectStatus(
      h.get('/console/audit/log/inclusion', {
        ...key,
        query: { index: INT32_MAX + 1, tree_size: INT32_MAX + 2 },
      }),
      200,
    )
    verifyInclusion(
      INT32_MAX + 1,
      INT32_MAX + 2,
      eventLeafHash(last),
      proof.proof.map((p: string) => Buffer.from(p, 'base64')),
      Buffer.from(checkpoint.root_hash, 'base64'),
    )
    expect(h.loggedErrors).toEqual([])
  })
})
