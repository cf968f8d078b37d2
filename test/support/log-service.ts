import type { Kysely } from 'kysely'
import { afterEach } from 'vitest'
import type { getLogInclusionProof } from '../../server/areas/audit-log/service.js'
import { AGGREGATES } from '../../server/aggregates.js'
import { type AppContext, createAppContext } from '../../server/pipeline/context.js'
import type { Database } from '../../server/platform/db/schema.js'
import { jsonLogger } from '../../server/platform/logging/logger.js'
import { MasterKey } from '../../server/platform/signing/master-key.js'
import { appendToFrontier, type Hash } from '../../src/tlog/merkle.js'

/*
 * For tests that call the verifiable log's service on a database they built by hand (migration tests):
 * a context on it, stopped after each test, the admin principal the service reads, and the nodes a
 * brute-force tree holds.
 */

/** The service reads only the principal's organization and whether it is the admin's. */
export const LOG_ADMIN = {
  keyId: 'test',
  orgId: 'admin',
  roles: ['owner'],
  isAdmin: true,
} as unknown as Parameters<typeof getLogInclusionProof>[1]

/** For a test file: a function giving an app context on a database, stopped after the test (registers the `afterEach`). */
export function logContextPerTest(): (db: Kysely<Database>) => AppContext {
  let ctx: AppContext | undefined
  afterEach(async () => {
    await ctx?.meter.stop()
    ctx = undefined
  })
  return (db) => {
    ctx = createAppContext({
      db: db as never,
      aggregates: AGGREGATES,
      masterKey: MasterKey.generate(),
      logger: jsonLogger({ level: 'error', destination: { write: () => {} } }),
    })
    return ctx
  }
}

/** Every complete subtree of the tree of these leaves, as appends store them. */
export function treeNodes(leaves: Hash[]): { level: number; index: number; hash: Hash }[] {
  const nodes: { level: number; index: number; hash: Hash }[] = []
  let frontier: Hash[] = []
  for (const [i, leaf] of leaves.entries()) {
    const step = appendToFrontier(i, frontier, leaf)
    frontier = step.frontier
    nodes.push(...step.completed)
  }
  return nodes
}
