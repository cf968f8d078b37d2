import SQLite from 'better-sqlite3'
import { QueryCreator } from 'kysely'
import pg from 'pg'
import { vi } from 'vitest'
import { TEST_DIALECT } from './backends.js'

/**
 * The statements kysely builds while `work` runs, as `insertInto transfers`: what a path compiled once
 * must not build again (docs/performance.md, issue 41).
 */
export async function builtDuring(work: () => Promise<unknown>): Promise<string[]> {
  const built: string[] = []
  for (const method of ['selectFrom', 'insertInto', 'updateTable', 'deleteFrom'] as const) {
    const original = QueryCreator.prototype[method] as (this: QueryCreator<never>, ...a: unknown[]) => unknown
    vi.spyOn(QueryCreator.prototype, method).mockImplementation(function (
      this: QueryCreator<never>,
      ...args: unknown[]
    ) {
      built.push(`${method} ${String(args[0])}`)
      return original.apply(this, args) as never
    })
  }
  try {
    await work()
  } finally {
    vi.restoreAllMocks()
  }
  return built
}

/** The SQL texts run while `work` runs, as the database driver is given them (SQLite or PostgreSQL). */
export async function statementsDuring(work: () => Promise<unknown>): Promise<string[]> {
  const texts: string[] = []
  if (TEST_DIALECT === 'sqlite') {
    const memory = new SQLite(':memory:')
    const statement = Object.getPrototypeOf(memory.prepare('select 1')) as Record<
      'run' | 'all',
      (...args: unknown[]) => unknown
    >
    memory.close()
    for (const method of ['run', 'all'] as const) {
      const original = statement[method]
      vi.spyOn(statement, method).mockImplementation(function (this: { source: string }, ...args: unknown[]) {
        texts.push(this.source)
        return original.apply(this, args)
      })
    }
  } else {
    const original = pg.Client.prototype.query as (...args: unknown[]) => unknown
    vi.spyOn(pg.Client.prototype, 'query').mockImplementation(function (this: pg.Client, ...args: unknown[]) {
      if (typeof args[0] === 'string') texts.push(args[0])
      return original.apply(this, args) as never
    })
  }
  try {
    await work()
  } finally {
    vi.restoreAllMocks()
  }
  return texts
}
