// Baseline (b): one prepared point select by primary key, returned as JSON — bare node:http over
// better-sqlite3. `GET /rows/:id`; the table is filled at start with --rows rows of about 300 bytes.
//
// Also `GET /pages/:group` (the optional `page` diagnostic): the newest 50 of a group's rows, each
// carrying a JSON document of about 2 KB that is parsed and sent back inside the page — the least work
// a list page of 50 transfers with their compliance details can cost.
import { argument, listen, openSqlite, sendJson } from './serve.mjs'

const db = await openSqlite(argument('db'))
const rows = Number(argument('rows'))
/** Groups the page rows fall into: 60 rows each, so every page is full. */
const groups = Math.max(1, Math.floor(rows / 60))
db.exec(`CREATE TABLE IF NOT EXISTS rows (
  id INTEGER PRIMARY KEY, name TEXT NOT NULL, body TEXT NOT NULL, created_at TEXT NOT NULL)`)
db.exec(`CREATE TABLE IF NOT EXISTS docs (
  id INTEGER PRIMARY KEY, grp INTEGER NOT NULL, name TEXT NOT NULL, details TEXT NOT NULL, created_at TEXT NOT NULL)`)
db.exec('CREATE INDEX IF NOT EXISTS docs_grp ON docs (grp, id)')
const insert = db.prepare('INSERT INTO rows (name, body, created_at) VALUES (?, ?, ?)')
const insertDoc = db.prepare('INSERT INTO docs (grp, name, details, created_at) VALUES (?, ?, ?, ?)')
db.transaction(() => {
  for (let i = 1; i <= rows; i++) {
    const now = new Date().toISOString()
    insert.run(`row ${i}`, 'x'.repeat(250), now)
    insertDoc.run(i % groups, `doc ${i}`, JSON.stringify(details(i)), now)
  }
})()
const select = db.prepare('SELECT id, name, body, created_at FROM rows WHERE id = ?')
const page = db.prepare(
  'SELECT id, name, details, created_at FROM docs WHERE grp = ? ORDER BY id DESC LIMIT 50',
)

listen(
  (req, res) => {
    if (req.url.startsWith('/pages/')) {
      const found = page.all(Number(req.url.slice('/pages/'.length)))
      return sendJson(res, 200, { docs: found.map((d) => ({ ...d, details: JSON.parse(d.details) })) })
    }
    const id = Number(req.url.slice('/rows/'.length))
    const row = Number.isInteger(id) ? select.get(id) : undefined
    if (row) sendJson(res, 200, row)
    else sendJson(res, 404, { error: 'not found' })
  },
  () => db.close(),
)

/** About 2 KB of nested JSON, shaped like a transfer with its compliance details. */
function details(i) {
  const check = (requirement, n) => ({
    requirement,
    jurisdiction: n % 2 ? 'BENCH-SRC' : 'BENCH-DST',
    satisfied: true,
    evidence: `att_${String(i).padStart(26, '0')}`,
    reason: `${requirement} of recipient did:web:bench-${i % 1000}:alice attested in att_${String(i).padStart(26, '0')}`,
  })
  return {
    transfer: {
      token_id: `tok_${String(i).padStart(26, '0')}`,
      from_jurisdiction: 'BENCH-SRC',
      to_jurisdiction: 'BENCH-DST',
      sender_did: `did:web:bench-${i % 1000}:owner`,
      recipient_did: `did:web:bench-${i % 1000}:alice`,
      amount: 1,
      proof_id: `prf_${String(i).padStart(26, '0')}`,
    },
    source_requirements: ['kyc', 'title_verification'],
    target_requirements: ['kyc', 'aml'],
    all_satisfied: true,
    checks: ['token_active', 'credential_valid', 'trust', 'kyc', 'title_verification', 'kyc', 'aml'].map(
      check,
    ),
  }
}
