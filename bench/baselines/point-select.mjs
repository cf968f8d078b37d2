// Baseline (b): one prepared point select by primary key, returned as JSON — bare node:http over
// better-sqlite3. `GET /rows/:id`; the table is filled at start with --rows rows of about 300 bytes.
import { argument, listen, openSqlite, sendJson } from './serve.mjs'

const db = await openSqlite(argument('db'))
const rows = Number(argument('rows'))
db.exec(`CREATE TABLE IF NOT EXISTS rows (
  id INTEGER PRIMARY KEY, name TEXT NOT NULL, body TEXT NOT NULL, created_at TEXT NOT NULL)`)
const insert = db.prepare('INSERT INTO rows (name, body, created_at) VALUES (?, ?, ?)')
db.transaction(() => {
  for (let i = 1; i <= rows; i++) insert.run(`row ${i}`, 'x'.repeat(250), new Date().toISOString())
})()
const select = db.prepare('SELECT id, name, body, created_at FROM rows WHERE id = ?')

listen(
  (req, res) => {
    const id = Number(req.url.slice('/rows/'.length))
    const row = Number.isInteger(id) ? select.get(id) : undefined
    if (row) sendJson(res, 200, row)
    else sendJson(res, 404, { error: 'not found' })
  },
  () => db.close(),
)
