#!/usr/bin/env node
// `node bench/read-below-handler.mjs --before OTHER [--after .] [--batches 30] [--batch 20000]`: the CPU
// per call of what `GET /console/rwa/jurisdictions/{id}` runs below its route's handler (the service's
// `getJurisdiction`: its query, the database path down to SQLite, the record made from the row) in two
// builds (OTHER/dist and this checkout's dist), in one process: each build over its own fresh SQLite
// file holding one organization and one jurisdiction, then batches of calls alternating between the
// two builds (order reversed every other batch), CPU from `process.cpuUsage`. No HTTP, no framework, no
// key: what is left is the part a change to the database path moves, measured without the noise of the
// rest of the request on a shared machine.
import { mkdtempSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { median } from './lib/stats.mjs'

const { values: flags } = parseArgs({
  options: {
    before: { type: 'string' },
    after: { type: 'string', default: '.' },
    batches: { type: 'string', default: '30' },
    batch: { type: 'string', default: '20000' },
  },
})
if (!flags.before) throw new Error('--before PATH (a built checkout) is required')
const work = mkdtempSync(join(tmpdir(), 'rwa-read-below-handler-'))
const JSON_COLUMNS = new Set(['frameworks', 'credential_types', 'transfer_requirements', 'external_only'])
try {
  const sides = {}
  for (const name of ['before', 'after']) {
    const root = resolve(name === 'before' ? flags.before : flags.after)
    const { openDatabase } = await import(`${root}/dist/server/platform/db/database.js`)
    const { getJurisdiction } = await import(`${root}/dist/server/areas/rwa/jurisdictions/service.js`)
    const db = await openDatabase(join(work, `${name}.db`))
    await db
      .insertInto('organizations')
      .values({ org_id: 'org_bench', created_at: '2026-01-01T00:00:00.000Z' })
      .execute()
    // One row of every column the build's schema has (a sealed key's length for the private key).
    const columns = (await db.introspection.getTables()).find((t) => t.name === 'jurisdictions').columns
    const row = {}
    for (const { name: column } of columns) {
      row[column] =
        column === 'org_id'
          ? 'org_bench'
          : column === 'jurisdiction_id'
            ? 'US'
            : column === 'issuer_since'
              ? null
              : column === 'private_key'
                ? 'k'.repeat(140)
                : JSON_COLUMNS.has(column)
                  ? '["a","b"]'
                  : `${column}-value`
    }
    await db.insertInto('jurisdictions').values(row).execute()
    sides[name] = { db, ctx: { db }, getJurisdiction }
  }
  const principal = { orgId: 'org_bench' }
  const batch = Number(flags.batch)
  const runBatch = async ({ ctx, getJurisdiction }) => {
    const t0 = process.cpuUsage()
    for (let i = 0; i < batch; i++) await getJurisdiction(ctx, principal, 'US')
    const used = process.cpuUsage(t0)
    return (used.user + used.system) / batch
  }
  // Both builds warmed up alike.
  for (const side of Object.values(sides)) for (let i = 0; i < 2; i++) await runBatch(side)
  const us = { before: [], after: [] }
  const loadStart = loadavg()
  for (let b = 0; b < Number(flags.batches); b++) {
    for (const name of b % 2 === 0 ? ['before', 'after'] : ['after', 'before'])
      us[name].push(await runBatch(sides[name]))
  }
  const ratios = us.after.map((a, i) => a / us.before[i])
  process.stdout.write(
    `getJurisdiction below the handler: before ${median(us.before).toFixed(2)} µs, after ${median(us.after).toFixed(2)} µs, after/before ${median(ratios).toFixed(3)} (median of ${flags.batches} alternating batches of ${batch}); load ${loadStart.map((v) => v.toFixed(2)).join(' ')} → ${loadavg()
      .map((v) => v.toFixed(2))
      .join(' ')}\n`,
  )
  for (const { db } of Object.values(sides)) await db.destroy()
} finally {
  rmSync(work, { recursive: true, force: true })
}
