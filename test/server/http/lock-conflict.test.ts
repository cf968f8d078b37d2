import { Hono } from 'hono'
import pg from 'pg'
import { afterEach, describe, expect, it } from 'vitest'
import { isLockConflict } from '../../../server/platform/errors.js'
import { errorHandler } from '../../../server/platform/http/error-handler.js'
import { problemSchema } from '../../../src/contract/errors.js'
import { createTestDatabase, TEST_DIALECT, type TestDatabase } from '../../support/backends.js'

/*
 * PostgreSQL aborts one of two transactions that wait on each other (a deadlock), rolling it back
 * whole. That is a conflict of the moment, not a bug: the request is answered 503 with Retry-After
 * (sent again, it can succeed), never 500. The deadlock here is a real one, made with two connections.
 */

let db: TestDatabase | undefined
afterEach(async () => {
  await db?.drop()
  db = undefined
})

/** The error PostgreSQL gives the loser of a real deadlock between two connections. */
async function realDeadlock(url: string): Promise<unknown> {
  const a = new pg.Client({ connectionString: url })
  const b = new pg.Client({ connectionString: url })
  await a.connect()
  await b.connect()
  try {
    await a.query('CREATE TABLE rows_locked (id int PRIMARY KEY)')
    await a.query('INSERT INTO rows_locked VALUES (1), (2)')
    await a.query('BEGIN')
    await b.query('BEGIN')
    await a.query('SELECT * FROM rows_locked WHERE id = 1 FOR UPDATE')
    await b.query('SELECT * FROM rows_locked WHERE id = 2 FOR UPDATE')
    const results = await Promise.allSettled([
      a.query('SELECT * FROM rows_locked WHERE id = 2 FOR UPDATE'),
      b.query('SELECT * FROM rows_locked WHERE id = 1 FOR UPDATE'),
    ])
    const failed = results.filter((r) => r.status === 'rejected')
    expect(failed).toHaveLength(1)
    return (failed[0] as PromiseRejectedResult).reason
  } finally {
    await a.query('ROLLBACK').catch(() => {})
    await b.query('ROLLBACK').catch(() => {})
    await a.end()
    await b.end()
  }
}

describe.runIf(TEST_DIALECT === 'postgres')('a write PostgreSQL aborts over a lock conflict', () => {
  it('is answered 503 database_unavailable with Retry-After, naming the conflict, not 500', async () => {
    db = await createTestDatabase({ empty: true })
    const deadlock = await realDeadlock(db.url)
    expect((deadlock as { code?: string }).code).toBe('40P01')
    expect(isLockConflict(deadlock)).toBe(true)
    expect(isLockConflict(new Error('syntax error'))).toBe(false)

    const logged: string[] = []
    const app = new Hono()
    app.onError(errorHandler((message) => logged.push(message)))
    app.post('/write', () => {
      throw deadlock
    })
    const res = await app.request('/write', { method: 'POST' })
    const text = await res.text()
    expect(res.status).toBe(503)
    expect(res.headers.get('retry-after')).toBe('5')
    const problem = problemSchema.parse(JSON.parse(text))
    expect(problem).toMatchObject({ code: 'unavailable', reason: 'database_unavailable' })
    expect(problem.detail).toMatch(/lock conflict.*nothing was written/)
    expect(text).not.toMatch(/deadlock|rows_locked/i)
    expect(logged[0]).toMatch(/lock conflict on POST \/write/)
  })
})
