import { ScopedStorage } from '../../platform/scoped-storage.js'

/*
 * What a write carries (docs/architecture.md, "One seam for every write"): who acts, the request that caused
 * it, and the list of changes its services record. The write's transaction turns that list into audit
 * events when it commits (server/pipeline/writes/run-write.ts); no service writes an audit event of its own.
 */

/** Who made a change: an API key with its roles, or the server itself on behalf of a system. */
export type Actor =
  | { key_id: string; roles: string[] }
  | { system: 'payment_provider' | 'trial_expiry' | 'bootstrap' | 'issuer_refresh' }

/** A record a write changed, as the audit log names it. Never a raw key, secret or private key in it. */
export interface Change {
  /** The organization whose record changed (an admin key's action is recorded in that organization). */
  orgId: string
  /** `<resource>.<past verb>`: `jurisdiction.updated`, `key.revoked`, `transfer.approved` ... */
  action: string
  target: { type: string; id: string }
  /** For an update, the record before and after (secrets left out). */
  before?: unknown
  after?: unknown
  /**
   * The record as the API answers it after the change: its event's `data.object` (docs/webhooks.md), given
   * the log position its audit event was appended at (a transfer's proof carries it; known only as the
   * write commits). Absent, the outbox reads the record back (server/pipeline/events/objects.ts). Only called
   * for a change that is an event, so a service may name it at no cost when it has the answer at hand.
   * It may give the record already serialized (`SerializedAnswer`).
   */
  answer?: (logIndex: number | undefined) => unknown
  /**
   * Called with the log position its audit event was appended at, as soon as it is: an answer made
   * before the append (a transfer's `log_index`) is completed by it. The route layer appends a write's
   * changes right before it serializes and stores its answer (server/pipeline/writes/run-write.ts,
   * `appendRecorded`), so the answer carries the real position and the log row is the last lock taken.
   */
  appended?: (logIndex: number) => void
}

/**
 * A change's answer as JSON text: what `JSON.stringify` gives of the record. A write keeps its changes
 * until it appends them at its end, a batch's a thousand of them: a record kept as one string costs the
 * garbage collector one object to copy instead of a tree of them (a transfer's proof:
 * docs/performance.md, "Twelfth pass: the batch's garbage").
 */
export class SerializedAnswer {
  constructor(readonly json: string) {}
}

/** Where a write comes from: its actor and the request id (null for a job). */
export interface WriteOrigin {
  actor: Actor
  requestId: string | null
}

/** A write in progress: its origin, the changes recorded so far, and what to do once it commits. */
export interface WriteScope extends WriteOrigin {
  readonly changes: Change[]
  readonly afterCommit: Array<() => void>
  /** How many of `changes` (the first ones) are appended to the log already, their audit events written. */
  appended: number
}

const scopes = new ScopedStorage<WriteScope>()

/** The write the current asynchronous flow runs in, if any. */
export const currentWrite = (): WriteScope | undefined => scopes.getStore()

/** Runs `fn` as the write `scope`. */
export const inWriteScope = <T>(scope: WriteScope, fn: () => Promise<T>): Promise<T> => scopes.run(scope, fn)

/**
 * Records a change in the current write. Outside a write it throws: a write that no route, webhook or
 * job opened would leave no audit event, and that is a bug.
 */
export function recordChange(change: Change): void {
  const scope = currentWrite()
  if (!scope) throw new Error(`${change.action} of ${change.target.id} recorded outside a write`)
  scope.changes.push(change)
}

/** Runs `fn` outside the current write: what it records is not the write's, nor rolled back with it. */
export const outsideWrite = <T>(fn: () => T): T => scopes.exit(fn)
