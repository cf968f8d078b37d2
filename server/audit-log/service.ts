import type {
  LogCheckpoint,
  LogCheckpointQuery,
  LogConsistency,
  LogConsistencyQuery,
  LogEntries,
  LogEntriesQuery,
  LogInclusion,
  LogInclusionQuery,
} from '../../src/contract/audit-log.js'
import {
  consistencyProof,
  EMPTY_ROOT,
  type Hash,
  inclusionProof,
  type NodeReader,
  nodesNeeded,
  readerOf,
  treeRoot,
} from '../../src/tlog/merkle.js'
import { rawPublicKey, signCheckpoint, verifierKey } from '../../src/tlog/note.js'
import { auditEventFromRow } from '../audit/service.js'
import { orgActedOn, type Principal } from '../auth/principal.js'
import type { AppContext } from '../context.js'
import { ApiError } from '../errors.js'
import { listLogEntries, readLog, readLogNodes } from './queries.js'

/*
 * The read side of the verifiable log (DESIGN §17): checkpoints, entries and proofs. Every read is of
 * committed state, so a checkpoint covers every write committed before it was asked for; proofs read
 * O(log n) stored nodes whatever the log's size.
 */

/** `<public host>/console/audit/<org_id>`: a checkpoint's origin and its note key's name. */
export const logOrigin = (ctx: AppContext, orgId: string): string =>
  `${new URL(ctx.publicUrl()).host}/console/audit/${orgId}`

/** The log key as the trust bundle and checkpoints name it for an organization. */
export async function logKeyOf(ctx: AppContext, orgId: string): Promise<{ kid: string; vkey: string }> {
  const { kid, key } = await ctx.signingKeys.logKey()
  return { kid, vkey: verifierKey(logOrigin(ctx, orgId), rawPublicKey(key)) }
}

// Signed checkpoints by context and organization: Ed25519 signatures are deterministic, so the note of
// a (size, root) never changes; this spares re-signing while the log stands still.
const signedNotes = new WeakMap<
  AppContext,
  Map<string, { origin: string; size: number; root: string; note: string }>
>()

async function signedCheckpoint(ctx: AppContext, orgId: string, size: number, root: Hash): Promise<string> {
  const origin = logOrigin(ctx, orgId)
  let notes = signedNotes.get(ctx)
  if (!notes) {
    notes = new Map()
    signedNotes.set(ctx, notes)
  }
  const rootB64 = root.toString('base64')
  const cached = notes.get(orgId)
  if (cached && cached.origin === origin && cached.size === size && cached.root === rootB64)
    return cached.note
  const { key } = await ctx.signingKeys.logKey()
  const note = signCheckpoint({ origin, size, root }, origin, key)
  notes.set(orgId, { origin, size, root: rootB64, note })
  return note
}

async function committedLog(ctx: AppContext, orgId: string): Promise<{ size: number; root: Hash }> {
  const row = await readLog(ctx.db, orgId)
  if (!row || row.size === 0) return { size: 0, root: EMPTY_ROOT }
  return { size: row.size, root: Buffer.from(row.root, 'hex') }
}

/** The organization's latest checkpoint, signed by the log key. */
export async function getLogCheckpoint(
  ctx: AppContext,
  principal: Principal,
  query: LogCheckpointQuery,
): Promise<LogCheckpoint> {
  const orgId = orgActedOn(principal, query.org_id)
  const { size, root } = await committedLog(ctx, orgId)
  return {
    org_id: orgId,
    origin: logOrigin(ctx, orgId),
    tree_size: size,
    root_hash: root.toString('base64'),
    checkpoint: await signedCheckpoint(ctx, orgId, size, root),
    log_key: await logKeyOf(ctx, orgId),
  }
}

/** The events at positions [start, end), fewer when the log is shorter. */
export async function getLogEntries(
  ctx: AppContext,
  principal: Principal,
  query: LogEntriesQuery,
): Promise<LogEntries> {
  const orgId = orgActedOn(principal, query.org_id)
  const { size } = await committedLog(ctx, orgId)
  const end = Math.min(query.end, Math.max(size, query.start))
  const rows = end > query.start ? await listLogEntries(ctx.db, orgId, query.start, end) : []
  return { org_id: orgId, start: query.start, end, entries: rows.map(auditEventFromRow) }
}

function assertWithinLog(size: number, asked: number, what: string): void {
  if (asked > size) {
    throw new ApiError('log_size_exceeded', `${what} ${asked} is beyond the log's size ${size}`, {
      context: { log_size: size },
    })
  }
}

/** Runs a proof computation over the O(log n) stored nodes it needs, fetched in one query. */
async function withNodes<T>(ctx: AppContext, orgId: string, compute: (read: NodeReader) => T): Promise<T> {
  const rows = await readLogNodes(ctx.db, orgId, nodesNeeded(compute))
  return compute(
    readerOf(rows.map((r) => ({ level: r.level, index: r.idx, hash: Buffer.from(r.hash, 'hex') }))),
  )
}

const b64 = (h: Hash) => h.toString('base64')

export async function getLogInclusionProof(
  ctx: AppContext,
  principal: Principal,
  query: LogInclusionQuery,
): Promise<LogInclusion> {
  const orgId = orgActedOn(principal, query.org_id)
  const { size } = await committedLog(ctx, orgId)
  assertWithinLog(size, query.tree_size, 'tree_size')
  const { index, tree_size } = query
  return withNodes(ctx, orgId, (read) => ({
    org_id: orgId,
    index,
    tree_size,
    leaf_hash: b64(read(0, index)),
    root_hash: b64(treeRoot(tree_size, read)),
    proof: inclusionProof(index, tree_size, read).map(b64),
  }))
}

export async function getLogConsistencyProof(
  ctx: AppContext,
  principal: Principal,
  query: LogConsistencyQuery,
): Promise<LogConsistency> {
  const orgId = orgActedOn(principal, query.org_id)
  const { size } = await committedLog(ctx, orgId)
  assertWithinLog(size, query.to, 'to')
  const { from, to } = query
  return withNodes(ctx, orgId, (read) => ({
    org_id: orgId,
    from,
    to,
    from_root: b64(treeRoot(from, read)),
    to_root: b64(treeRoot(to, read)),
    proof: consistencyProof(from, to, read).map(b64),
  }))
}
