import { insertAuditEvents } from '../audit/queries.js'
import { appendToAuditLog, type PendingAuditEvent } from '../audit-log/append.js'
import type { Principal } from '../auth/principal.js'
import { isoTimestamp } from '../clock.js'
import type { AppContext } from '../context.js'
import { holdingConnection } from '../db/held-connection.js'
import { enqueueEvents } from '../events/outbox.js'
import {
  type Actor,
  type Change,
  currentWrite,
  inWriteScope,
  type WriteOrigin,
  type WriteScope,
} from './change.js'

/**
 * Runs a write (DESIGN §16, "one seam for every write"): `work` runs in one transaction that carries
 * the actor, the request id and the changes the services record (`ctx.record`); the changes become
 * audit events in that same transaction, just before it commits, so a write that fails or is refused
 * leaves none. The transactions the services open inside it are savepoints of it, and every query of
 * the flow runs on its connection (server/db/held-connection.ts). What must wait until the write is
 * durable (forgetting cached records: `ctx.invalidate`) runs after the commit. A write inside a write
 * is part of the outer one.
 */
export async function runWrite<T>(ctx: AppContext, origin: WriteOrigin, work: () => Promise<T>): Promise<T> {
  if (currentWrite()) return work()
  const scope: WriteScope = { ...origin, changes: [], afterCommit: [] }
  const result = await inWriteScope(scope, () =>
    holdingConnection(() =>
      ctx.db.transaction().execute(async (trx) => {
        const value = await work()
        const events: PendingAuditEvent[] = scope.changes.map((change) => auditRow(ctx, scope, change))
        await appendToAuditLog(trx, events)
        await insertAuditEvents(trx, events)
        await enqueueEvents(ctx, trx, scope, events)
        return value
      }),
    ),
  )
  for (const after of scope.afterCommit) after()
  return result
}

function auditRow(ctx: AppContext, scope: WriteScope, change: Change) {
  const changes =
    change.before === undefined && change.after === undefined
      ? null
      : JSON.stringify({ before: change.before ?? null, after: change.after ?? null })
  return {
    event_id: ctx.ids.next('aud'),
    org_id: change.orgId,
    at: isoTimestamp(ctx.clock.now()),
    actor: JSON.stringify(scope.actor),
    actor_key_id: 'key_id' in scope.actor ? scope.actor.key_id : null,
    request_id: scope.requestId,
    action: change.action,
    target_type: change.target.type,
    target_id: change.target.id,
    changes,
  }
}

/** The actor a key's write records: the key and its roles (DESIGN §16). */
export function actorOf(principal: Principal): Actor {
  return { key_id: principal.keyId, roles: [...principal.roles] }
}
