// Baseline (c): one prepared insert of the posted ~300-byte JSON row per request, in its own
// transaction (autocommit), WAL — bare node:http over better-sqlite3. `POST /rows` answers 201 {id}.
import { argument, listen, openSqlite, sendJson } from './serve.mjs'

const db = await openSqlite(argument('db'))
db.exec(`CREATE TABLE IF NOT EXISTS rows (
  id INTEGER PRIMARY KEY, name TEXT NOT NULL, body TEXT NOT NULL, created_at TEXT NOT NULL)`)
const insert = db.prepare('INSERT INTO rows (name, body, created_at) VALUES (?, ?, ?)')

listen(
  (req, res) => {
    const chunks = []
    req.on('data', (chunk) => chunks.push(chunk))
    req.on('end', () => {
      let row
      try {
        row = JSON.parse(Buffer.concat(chunks).toString('utf8'))
      } catch {
        return sendJson(res, 400, { error: 'invalid JSON' })
      }
      const { lastInsertRowid } = insert.run(String(row.name), JSON.stringify(row), new Date().toISOString())
      sendJson(res, 201, { id: Number(lastInsertRowid) })
    })
  },
  () => db.close(),
)
