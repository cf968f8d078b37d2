import type { TestResponse } from './harness.js'

/** How many responses came back with each status: `{ 200: 60, 429: 40 }`. */
export function statuses(responses: TestResponse[]): Record<number, number> {
  const counts: Record<number, number> = {}
  for (const r of responses) counts[r.status] = (counts[r.status] ?? 0) + 1
  return counts
}

/**
 * Polls `check` until it holds, failing once `ms` of real time have passed: for what the design
 * promises within a time (another instance hearing of a change within a second), never for speed.
 */
export async function within(ms: number, check: () => boolean | Promise<boolean>): Promise<void> {
  const start = performance.now()
  while (!(await check())) {
    if (performance.now() - start > ms) throw new Error(`not within ${ms} ms`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}
