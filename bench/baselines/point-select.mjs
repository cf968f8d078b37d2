// Baseline (b): one prepared point select by primary key, returned as JSON — bare node:http over
// better-sqlite3. `GET /rows/:id`; the table is filled at start with --rows rows of about 300 bytes.
//
// Baseline (d), `GET /pages/:group`: a list page as rwa's `GET /console/rwa/transfers?limit=50`
// answers it — the newest 50 of a group's rows (by an index on group and id), each a transfer summary
// (docs/governance.md, "Transfers": ids, parties, jurisdictions, amount, status, `proof_id`, `created_at` and
// the three compliance fields, stored as JSON and parsed), the count of the group's rows as `total`, and the
// next cursor: the same shape, the same 50 items and the same bytes (about 24 KB) as rwa's page.
import { argument, listen, openSqlite, sendJson } from './serve.mjs'

const db = await openSqlite(argument('db'))
const rows = Number(argument('rows'))
/** Groups the page rows fall into: 60 rows each, so every page is full. */
const groups = Math.max(1, Math.floor(rows / 60))
db.exec(`CREATE TABLE IF NOT EXISTS rows (
  id INTEGER PRIMARY KEY, name TEXT NOT NULL, body TEXT NOT NULL, created_at TEXT NOT NULL)`)
db.exec(`CREATE TABLE IF NOT EXISTS transfers (
  transfer_id TEXT PRIMARY KEY, grp INTEGER NOT NULL, status TEXT NOT NULL, proof_id TEXT NOT NULL,
  compliance TEXT NOT NULL, token_id TEXT NOT NULL, from_jurisdiction TEXT NOT NULL,
  to_jurisdiction TEXT NOT NULL, sender_did TEXT NOT NULL, recipient_did TEXT NOT NULL,
  amount INTEGER NOT NULL, created_at TEXT NOT NULL)`)
db.exec('CREATE INDEX IF NOT EXISTS transfers_grp ON transfers (grp, transfer_id)')
const insert = db.prepare('INSERT INTO rows (name, body, created_at) VALUES (?, ?, ?)')
const insertTransfer = db.prepare(
  'INSERT INTO transfers VALUES (@transfer_id, @grp, @status, @proof_id, @compliance, @token_id, @from_jurisdiction, @to_jurisdiction, @sender_did, @recipient_did, @amount, @created_at)',
)
db.transaction(() => {
  for (let i = 1; i <= rows; i++) {
    insert.run(`row ${i}`, 'x'.repeat(250), new Date().toISOString())
    insertTransfer.run(transferRow(i, i % groups))
  }
})()
const select = db.prepare('SELECT id, name, body, created_at FROM rows WHERE id = ?')
const page = db.prepare(
  `SELECT transfer_id, status, proof_id, compliance, token_id, from_jurisdiction, to_jurisdiction,
     sender_did, recipient_did, amount, created_at
   FROM transfers WHERE grp = ? ORDER BY transfer_id DESC LIMIT 51`,
)
const count = db.prepare('SELECT count(*) AS n FROM transfers WHERE grp = ?')

listen(
  (req, res) => {
    if (req.url.startsWith('/pages/')) {
      const group = Number(req.url.slice('/pages/'.length))
      const found = page.all(group)
      const items = found.slice(0, 50).map(({ compliance, ...t }) => ({
        transfer_id: t.transfer_id,
        status: t.status,
        proof_id: t.proof_id,
        compliance_details: JSON.parse(compliance),
        token_id: t.token_id,
        from_jurisdiction: t.from_jurisdiction,
        to_jurisdiction: t.to_jurisdiction,
        sender_did: t.sender_did,
        recipient_did: t.recipient_did,
        amount: t.amount,
        created_at: t.created_at,
      }))
      const next_cursor = found.length > 50 ? items[49].transfer_id : null
      return sendJson(res, 200, { transfers: items, total: count.get(group).n, next_cursor })
    }
    const id = Number(req.url.slice('/rows/'.length))
    const row = Number.isInteger(id) ? select.get(id) : undefined
    if (row) sendJson(res, 200, row)
    else sendJson(res, 404, { error: 'not found' })
  },
  () => db.close(),
)

/**
 * A transfer summary as rwa stores and lists it, with ids and DIDs of the same lengths as the
 * benchmark's seeded ones: about 485 bytes of JSON per item.
 */
function transferRow(i, grp) {
  const id = (prefix) => `${prefix}_${String(i).padStart(26, '0')}`
  const approved = i % 2 === 0
  return {
    transfer_id: id('tx'),
    grp,
    status: approved ? 'approved' : 'rejected',
    proof_id: id('prf'),
    compliance: JSON.stringify({
      source_requirements: ['kyc', 'title_verification'],
      target_requirements: ['kyc', 'aml'],
      all_satisfied: approved,
    }),
    token_id: id('tok'),
    from_jurisdiction: 'BENCH-SRC',
    to_jurisdiction: 'BENCH-DST',
    sender_did: `did:web:bench-${String(grp % 10000).padStart(4, '0')}:owner`,
    recipient_did: `did:web:bench-${String(grp % 10000).padStart(4, '0')}:${approved ? 'alice' : 'mallory'}`,
    amount: 1,
    created_at: new Date(Date.UTC(2026, 10, 23, 12, 0, 0, i)).toISOString(),
  }
}
