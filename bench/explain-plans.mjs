#!/usr/bin/env node
// `node bench/explain-plans.mjs [sqlite|postgres]`: the query plan of every statement on the hot paths
// the scale scenario measures (a transfer's facts and writes, the authenticated read, the token detail,
// the transfers list with each filter and a cursor), on SQLite (EXPLAIN QUERY PLAN, no ANALYZE, as the
// server runs) and on PostgreSQL (EXPLAIN, on a database of its own holding 200,000 transfers and
// history events and proofs of one organization, analyzed; dropped afterwards). Prints each statement and its
// plan; a full scan of transfers, token_events or proofs is marked `<-- SCAN`. Needs `npm run build`.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import Database from 'better-sqlite3'
import { CompiledQuery, Kysely, PostgresDialect, SqliteDialect } from 'kysely'
import pg from 'pg'
import { BENCH_DATABASE_URL } from './lib/postgres.mjs'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const dist = (path) => import(pathToFileURL(join(ROOT, 'dist/server', path)).href)
const { migrate } = await dist('db/database.js')
const transfers = await dist('rwa/transfers/queries.js')
const tokens = await dist('rwa/tokens/queries.js')
const holdings = await dist('rwa/holdings/queries.js')
const { findJurisdictions, findJurisdiction } = await dist('rwa/jurisdictions/queries.js')
const { findCredential } = await dist('rwa/credentials/queries.js')
const { attestationsForTransfer } = await dist('rwa/attestations/queries.js')
const { activeTrustTouching } = await dist('rwa/trust/queries.js')
const { findKeyByHash } = await dist('caches/queries.js')
const { addUsage, requestCountOn } = await dist('metering/queries.js')

const ORG = 'scale'
const TOKEN = 'tok_00000000000000000000000000'
const DAY = '2026-11-23'

/** Runs every hot query once on `db` and returns the statements it sent, in order, each once. */
async function hotStatements(db) {
  const seen = new Map()
  const exec = db.getExecutor()
  const capturing = db.withPlugin({
    transformQuery: ({ node, queryId }) => {
      const compiled = exec.compileQuery(node, queryId)
      if (!seen.has(compiled.sql)) seen.set(compiled.sql, compiled)
      return node
    },
    transformResult: async ({ result }) => result,
  })
  const list = (q) => transfers.listTransfers(capturing, ORG, { limit: 50, ...q })
  const steps = [
    ['authenticated read', () => findKeyByHash(capturing, 'h')],
    ['authenticated read', () => requestCountOn(capturing, ORG, DAY)],
    ['authenticated read', () => addUsage(capturing, ORG, DAY, 'request_count', 1)],
    ['authenticated read', () => findJurisdiction(capturing, ORG, 'SRC')],
    ['transfer facts', () => tokens.findToken(capturing, ORG, TOKEN)],
    ['transfer facts', () => findJurisdictions(capturing, ORG, ['SRC', 'DST'])],
    ['transfer facts', () => findCredential(capturing, ORG, 'cred_1')],
    ['transfer facts', () => activeTrustTouching(capturing, ORG, ['SRC', 'DST'])],
    [
      'transfer facts',
      () => attestationsForTransfer(capturing, ORG, 'did:x', ['kyc', 'aml'], 'cred_1', 'title_verification'),
    ],
    ['transfer facts', () => holdings.frozenAmong(capturing, TOKEN, ['did:a', 'did:b'])],
    ['transfer facts', () => holdings.holdingOf(capturing, TOKEN, 'did:a', 'SRC')],
    ['transfer facts', () => holdings.balanceOf(capturing, TOKEN, 'did:b')],
    ['transfer facts', () => holdings.holderCount(capturing, TOKEN, 'DST')],
    ['transfer facts', () => transfers.approvedVolumeOn(capturing, TOKEN, 'did:a', DAY)],
    ['token detail', () => holdings.holdingsOf(capturing, [TOKEN])],
    ['token detail', () => holdings.frozenHolders(capturing, TOKEN)],
    ['token detail', () => tokens.latestTokenEvents(capturing, TOKEN, 100)],
    ['token detail', () => tokens.countTokenEvents(capturing, TOKEN)],
    ['history page', () => tokens.tokenEventsPage(capturing, TOKEN, { limit: 50, cursor: 'evt_0' })],
    ['transfer detail', () => transfers.findTransfer(capturing, ORG, 'tx_1')],
    ['transfer detail', () => transfers.findProof(capturing, ORG, 'prf_1')],
    ['list', () => list({})],
    ['list', () => list({ cursor: 'tx_5' })],
    ['list', () => list({ status: 'approved' })],
    ['list', () => list({ token_id: TOKEN })],
    ['list', () => list({ jurisdiction: 'DST' })],
    ['list', () => list({ token_id: TOKEN, status: 'rejected', jurisdiction: 'DST', cursor: 'tx_5' })],
  ]
  const out = []
  for (const [path, run] of steps) {
    const before = seen.size
    await run()
    for (const compiled of [...seen.values()].slice(before)) out.push({ path, compiled })
  }
  return out
}

/** The writes of a transfer, run inside a transaction that is rolled back. */
async function writeStatements(db) {
  const out = []
  await db
    .transaction()
    .execute(async (trx) => {
      const seen = []
      const exec = trx.getExecutor()
      const capturing = trx.withPlugin({
        transformQuery: ({ node, queryId }) => {
          seen.push(exec.compileQuery(node, queryId))
          return node
        },
        transformResult: async ({ result }) => result,
      })
      await transfers.insertTransfer(capturing, {
        transfer_id: 'tx_new',
        org_id: ORG,
        token_id: TOKEN,
        from_jurisdiction: 'SRC',
        to_jurisdiction: 'DST',
        sender_did: 'did:a',
        recipient_did: 'did:b',
        amount: 1,
        status: 'approved',
        proof_id: 'prf_new',
        created_at: `${DAY}T12:00:00.000Z`,
        reason: null,
        compliance_summary: '{}',
        compliance_checks: '[]',
      })
      await tokens.insertTokenEvent(capturing, {
        event_id: 'evt_new',
        org_id: ORG,
        token_id: TOKEN,
        event: 'transfer_approved',
        at: `${DAY}T12:00:00.000Z`,
        details: '{}',
      })
      await holdings.adjustHolding(capturing, TOKEN, 'did:b', 'DST', 1)
      for (const compiled of seen) out.push({ path: 'transfer writes', compiled })
      throw new Rollback()
    })
    .catch((error) => {
      if (!(error instanceof Rollback)) throw error
    })
  return out
}

class Rollback extends Error {}

const fullScan = (plan) => /(SCAN|Seq Scan on) (transfers|token_events|proofs)\b/.test(plan)

async function sqlitePlans() {
  const dir = mkdtempSync(join(tmpdir(), 'rwa-explain-'))
  const sqlite = new Database(join(dir, 'plans.db'))
  const db = new Kysely({ dialect: new SqliteDialect({ database: sqlite }) })
  try {
    await migrate(db)
    const statements = [...(await hotStatements(db)), ...(await writeStatements(db))]
    for (const { path, compiled } of statements) {
      const plan = sqlite
        .prepare(`EXPLAIN QUERY PLAN ${compiled.sql}`)
        .all(compiled.parameters.map((p) => (typeof p === 'boolean' ? Number(p) : p)))
        .map((r) => r.detail)
        .join('; ')
      print(path, compiled.sql, plan)
    }
  } finally {
    await db.destroy()
    rmSync(dir, { recursive: true, force: true })
  }
}

async function postgresPlans() {
  const name = `rwa_explain_${process.pid}`
  const admin = new pg.Client({ connectionString: BENCH_DATABASE_URL })
  await admin.connect()
  await admin.query(`create database ${name}`)
  const url = new URL(BENCH_DATABASE_URL)
  url.pathname = `/${name}`
  const pool = new pg.Pool({ connectionString: url.href, max: 2 })
  const db = new Kysely({ dialect: new PostgresDialect({ pool }) })
  try {
    await migrate(db)
    // One organization's history: 200,000 transfers over a year and their events, counters to match.
    await db.executeQuery(
      CompiledQuery.raw(`
      insert into transfers (transfer_id, org_id, token_id, from_jurisdiction, to_jurisdiction, sender_did,
        recipient_did, amount, status, proof_id, compliance_summary, compliance_checks, created_at)
      select 'tx_' || lpad(i::text, 26, '0'), '${ORG}', '${TOKEN}', 'SRC', 'DST', 'did:a', 'did:b', 1,
        case when i % 2 = 0 then 'approved' else 'rejected' end, 'prf_' || lpad(i::text, 26, '0'), '{}', '[]',
        to_char(timestamp '2025-11-23' + i * interval '150 seconds', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
      from generate_series(1, 200000) i`),
    )
    await db.executeQuery(
      CompiledQuery.raw(`
      insert into token_events (event_id, org_id, token_id, event, at, details)
      select 'evt_' || lpad(i::text, 26, '0'), '${ORG}', '${TOKEN}', 'transfer_approved', '2026-01-01', '{}'
      from generate_series(1, 200000) i`),
    )
    await db.executeQuery(
      CompiledQuery.raw(`
      insert into proofs (proof_id, org_id, transfer_id, facts, digest, jws, kid)
      select 'prf_' || lpad(i::text, 26, '0'), '${ORG}', 'tx_' || lpad(i::text, 26, '0'), '{}', 'd', 'j', 'k'
      from generate_series(1, 200000) i`),
    )
    await db.executeQuery(
      CompiledQuery.raw(`insert into transfer_counts select org_id, token_id, status, from_jurisdiction,
      to_jurisdiction, count(*) from transfers group by 1, 2, 3, 4, 5`),
    )
    await db.executeQuery(CompiledQuery.raw(`insert into token_event_counts values ('${TOKEN}', 200000)`))
    await db.executeQuery(CompiledQuery.raw('analyze'))
    const statements = [...(await hotStatements(db)), ...(await writeStatements(db))]
    for (const { path, compiled } of statements) {
      const result = await db.executeQuery(
        CompiledQuery.raw(`EXPLAIN ${compiled.sql}`, [...compiled.parameters]),
      )
      print(path, compiled.sql, result.rows.map((r) => r['QUERY PLAN'].trim()).join('; '))
    }
  } finally {
    await db.destroy()
    await admin.query(`drop database if exists ${name}`)
    await admin.end()
  }
}

function print(path, statement, plan) {
  process.stdout.write(`[${path}] ${statement}\n    ${plan}${fullScan(plan) ? '   <-- SCAN' : ''}\n`)
}

const which = process.argv[2] ?? 'sqlite'
if (which === 'sqlite') await sqlitePlans()
else if (which === 'postgres') await postgresPlans()
else throw new Error('usage: node bench/explain-plans.mjs [sqlite|postgres]')
