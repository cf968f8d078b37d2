import { QueryCreator } from 'kysely'
import { vi } from 'vitest'

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
