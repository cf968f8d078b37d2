// What the three baseline servers share: listen on 127.0.0.1 on a free port, log like `rwa server
// start` does (so the bench reads every server the same way), and stop cleanly on SIGTERM.
import { createServer } from 'node:http'

/** Serves `handler` on 127.0.0.1, port 0; runs `onClose` after the last connection ends. */
export function listen(handler, onClose = () => {}) {
  const server = createServer(handler)
  server.listen(0, '127.0.0.1', () => {
    process.stderr.write(`listening on http://127.0.0.1:${server.address().port}\n`)
  })
  const stop = () => {
    server.close(() => onClose())
    server.closeIdleConnections()
  }
  process.once('SIGTERM', stop)
  process.once('SIGINT', stop)
}

/** The value of `--name value` on the command line. */
export function argument(name) {
  const at = process.argv.indexOf(`--${name}`)
  if (at < 0 || at + 1 >= process.argv.length) throw new Error(`missing --${name}`)
  return process.argv[at + 1]
}

/**
 * Opens a SQLite file with the storage settings the rwa server opens its own with
 * (server/platform/db/database.ts): WAL, synchronous NORMAL, foreign keys, the file read through a
 * memory map, rwa's checkpoint interval, temporary storage in memory. They are settings of the storage,
 * not work of the framework, and they change what the same statements cost: without the map a floor
 * working for a thousand organizations read a page with a system call where rwa reads none.
 */
export async function openSqlite(path) {
  const { default: SQLite } = await import('better-sqlite3')
  const { SQLITE_MMAP_BYTES, WAL_AUTOCHECKPOINT_PAGES } = await import(
    '../../dist/server/platform/db/database.js'
  )
  const db = new SQLite(path)
  db.pragma('journal_mode = WAL')
  db.pragma('synchronous = NORMAL')
  db.pragma('foreign_keys = ON')
  db.pragma(`mmap_size = ${SQLITE_MMAP_BYTES}`)
  db.pragma(`wal_autocheckpoint = ${WAL_AUTOCHECKPOINT_PAGES}`)
  db.pragma('temp_store = MEMORY')
  return db
}

/** Sends `value` as JSON with `status`. */
export function sendJson(res, status, value) {
  const body = JSON.stringify(value)
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) })
  res.end(body)
}
