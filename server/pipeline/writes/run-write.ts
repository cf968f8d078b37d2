import { type CanonicalJsonText, canonicalText } from '../../../src/tlog/leaf.js'
import { isoTimestamp } from '../../platform/clock.js'
import { atTopOfHeldTransaction, holdingConnection } from '../../platform/db/held-connection.js'
import type { Executor } from '../../platform/db/queries.js'
import { insertAuditEvents } from '../audit/queries.js'
import { appendToAuditLog, type PendingAuditEvent } from '../audit-log/append.js'
import type { Principal } from '../auth/principal.js'
import type { AppContext } from '../context.js'
import { enqueueEvents } from '../events/outbox.js'
import {
  type Actor,
  type Change,
  currentWrite,
  inWriteScope,
  type WriteOrigin,
  type WriteScope,
} from './change.js'
import { withOutsideWork } from './outside-work.js'

/**
 * Runs a write (docs/architecture.md, "One seam for every write"): `work` runs in one transaction that
 * carries the actor, the request id and the changes the services record (`ctx.record`); the changes become
 * audit events in that same transaction, appended to the log last (`appendRecorded`: the route layer
 * calls it before it serializes the answer; whatever is left is appended just before the commit), so a
 * write that fails or is refused leaves none. The transactions the services open inside it are
 * savepoints of it, and every query of the flow runs on its connection (server/platform/db/held-connection.ts).
 * What must wait until the write is durable (forgetting cached records: `ctx.invalidate`) runs after
 * the commit. A write inside a write is part of the outer one.
 */
export async function runWrite<T>(ctx: AppContext, origin: WriteOrigin, work: () => Promise<T>): Promise<T> {
  if (currentWrite()) return work()
  // A write that needs something fetched from outside first is rolled back, the fetch done with no
  // transaction open, and the write run again (./outside-work.ts).
  return withOutsideWork(() => runWriteOnce(ctx, origin, work))
}

async function runWriteOnce<T>(ctx: AppContext, origin: WriteOrigin, work: () => Promise<T>): Promise<T> {
  const scope: WriteScope = { ...origin, changes: [], afterCommit: [], appended: 0 }
  const result = await inWriteScope(scope, () =>
    holdingConnection(() =>
      ctx.db.transaction().execute(async (trx) => {
        const value = await work()
        await appendChanges(ctx, trx, scope)
        return value
      }),
    ),
  )
  for (const after of scope.afterCommit) after()
  return result
}

/**
 * Appends the changes the current write recorded so far (and not yet appended) to their
 * organizations' logs (docs/governance.md, "The verifiable log"), writing their audit events and their events
 * (docs/webhooks.md), and tells each change its log position (`Change.appended`), so that an answer made now
 * carries it. The append locks each organization's log row until the commit: called once the write's work is
 * done, right before its answer is serialized and stored (server/routes.ts), the log row is the last row
 * the write locks, after every row its operations locked (a batch's credentials, holdings,
 * status lists...), so a concurrent write of the organization that locked one of those first and
 * waits for the log never deadlocks with it. Changes recorded after (an approval's own) are appended
 * by a later call or at the commit.
 */
export async function appendRecorded(ctx: AppContext): Promise<void> {
  const scope = currentWrite()
  if (!scope) throw new Error('appendRecorded outside a write')
  await appendChanges(ctx, ctx.db, scope)
}

/**
 * Appends what the current write recorded so far, as `appendRecorded`, then forgets it: the changes, their
 * answers and closures no longer kept until the write's end. For a write that runs many operations one
 * after another (a batch on SQLite: server/areas/rwa/batch/service.ts), between two of them, where no
 * savepoint is open: a savepoint rolled back restores the write's list of changes to its length when it
 * began (./savepoint.ts), which a forgotten list no longer has (checked).
 */
export async function appendRecordedAndForget(ctx: AppContext): Promise<void> {
  const scope = currentWrite()
  if (!scope) throw new Error('appendRecordedAndForget outside a write')
  if (!atTopOfHeldTransaction()) throw new Error('appendRecordedAndForget inside a savepoint of the write')
  await appendChanges(ctx, ctx.db, scope)
  scope.changes.length = 0
  scope.appended = 0
}

async function appendChanges(ctx: AppContext, db: Executor, scope: WriteScope): Promise<void> {
  const changes = scope.changes.slice(scope.appended)
  if (changes.length === 0) return
  // Canonical JSON, as the log's leaf commits to it: the leaf is written around these texts.
  const actor = canonicalText(scope.actor, 'the actor')
  const events: PendingAuditEvent[] = changes.map((change) => auditRow(ctx, scope, actor, change))
  await appendToAuditLog(db, events)
  await insertAuditEvents(db, events)
  await enqueueEvents(ctx, db, scope, changes, events)
  scope.appended = scope.changes.length
  for (const [i, change] of changes.entries()) {
    const logIndex = events[i]?.log_index
    if (change.appended && typeof logIndex === 'number') change.appended(logIndex)
  }
}

function auditRow(ctx: AppContext, scope: WriteScope, actor: CanonicalJsonText, change: Change) {
  const changes =
    change.before === undefined && change.after === undefined
      ? null
      : canonicalText({ before: change.before ?? null, after: change.after ?? null }, 'the changes')
  return {
    event_id: ctx.ids.next('aud'),
    org_id: change.orgId,
    at: isoTimestamp(ctx.clock.now()),
    actor,
    actor_key_id: 'key_id' in scope.actor ? scope.actor.key_id : null,
    request_id: scope.requestId,
    action: change.action,
    target_type: change.target.type,
    target_id: change.target.id,
    changes,
  }
}

/** The actor a key's write records: the key and its roles (docs/accountability.md, "What is recorded"). */
export function actorOf(principal: Principal): Actor {
  return { key_id: principal.keyId, roles: [...principal.roles] }
}
