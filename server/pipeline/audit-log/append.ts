import { type CanonicalJsonText, leafDataOfStored } from '../../../src/tlog/leaf.js'
import { appendToFrontier, hashLeaf, rootOfFrontier } from '../../../src/tlog/merkle.js'
import { sqlLogStore } from '../../platform/audit-log/sql-store.js'
import type { LogNode, LogStore } from '../../platform/audit-log/store.js'
import type { AuditEventsTable } from '../../platform/db/accountability-schema.js'
import type { Executor } from '../../platform/db/queries.js'

/**
 * An audit event about to be inserted, its `actor` and `changes` canonical JSON (server/pipeline/writes/run-write.ts);
 * the append gives it its `log_index`.
 */
export type PendingAuditEvent = Omit<AuditEventsTable, 'log_index' | 'actor' | 'changes'> & {
  actor: CanonicalJsonText
  changes: CanonicalJsonText | null
  log_index?: number | null
}

/**
 * Appends a write's audit events to their organizations' logs (docs/governance.md, "The verifiable log"), in
 * the write's transaction just before it commits, and sets each event's `log_index`. Per organization: one
 * locked read of its log's state, the leaf hashes, the complete subtrees they finish (two per event on
 * average), one update: O(log n) at any size. Organizations are locked in id order, so two writes
 * touching the same two never wait on each other crosswise.
 */
export async function appendToAuditLog(
  db: Executor,
  events: PendingAuditEvent[],
  store: LogStore = sqlLogStore,
): Promise<void> {
  const byOrg = new Map<string, PendingAuditEvent[]>()
  for (const event of events) {
    const list = byOrg.get(event.org_id)
    if (list) list.push(event)
    else byOrg.set(event.org_id, [event])
  }
  for (const orgId of [...byOrg.keys()].sort()) {
    let { size, frontier } = await store.lockCheckpoint(db, orgId)
    const completed: LogNode[] = []
    for (const event of byOrg.get(orgId) ?? []) {
      const leaf = hashLeaf(leafDataOfStored(event))
      const step = appendToFrontier(size, frontier, leaf)
      completed.push(...step.completed)
      frontier = step.frontier
      event.log_index = size
      size += 1
    }
    await store.append(db, orgId, completed, { size, root: rootOfFrontier(frontier), frontier })
  }
}
