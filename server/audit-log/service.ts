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
  frontierNodes,
  type Hash,
  inclusionProof,
  NodeMap,
  type NodeId,
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

/** The log as last committed: its size, root, and compact range (hex, largest subtree first). */
interface CommittedLog {
  size: number
  root: Hash
  frontier: string
}

async function committedLog(ctx: AppContext, orgId: string): Promise<CommittedLog> {
  const row = await readLog(ctx.db, orgId)
  if (!row || row.size === 0) return { size: 0, root: EMPTY_ROOT, frontier: '' }
  return { size: row.size, root: Buffer.from(row.root, 'hex'), frontier: row.frontier }
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

/**
 * Stored nodes at level 8 or more (each the root of 256 leaves or more), by context and
 * organization: every node is written once and never changes, and these are few (one in 256 of a
 * log's nodes) and shared by the proofs of all the leaves under them, so a proof fetches the nodes of
 * its eight lowest levels only, whatever the log's size. Past `UPPER_NODES_MAX` nodes in all, the
 * cache starts over. (A database restored under a running instance needs the instance restarted, as
 * for every cache the server keeps.)
 */
const upperNodes = new WeakMap<AppContext, { count: number; byOrg: Map<string, NodeMap<Hash>> }>()
const UPPER_LEVEL = 8
const UPPER_NODES_MAX = 1 << 16

function rememberUpperNode(ctx: AppContext, orgId: string, level: number, index: number, hash: Hash) {
  let cache = upperNodes.get(ctx)
  if (!cache || cache.count >= UPPER_NODES_MAX) {
    cache = { count: 0, byOrg: new Map() }
    upperNodes.set(ctx, cache)
  }
  let nodes = cache.byOrg.get(orgId)
  if (!nodes) {
    nodes = new NodeMap()
    cache.byOrg.set(orgId, nodes)
  }
  const before = nodes.size
  nodes.set(level, index, hash)
  cache.count += nodes.size - before
}

/**
 * Runs a proof computation over the O(log n) stored nodes it needs. The log row just read holds the
 * complete subtrees its size decomposes into (its frontier), which every proof at that size reads to
 * hash the right edge of the tree: those are taken from it, the upper nodes from memory, and only the
 * others are fetched, in one query.
 */
async function withNodes<T>(
  ctx: AppContext,
  orgId: string,
  log: CommittedLog,
  compute: (read: NodeReader) => T,
): Promise<T> {
  const nodes = new NodeMap<Hash>()
  if (log.frontier !== '') {
    const frontier = log.frontier.split(',').map((h) => Buffer.from(h, 'hex'))
    for (const n of frontierNodes(log.size, frontier)) nodes.set(n.level, n.index, n.hash)
  }
  const upper = upperNodes.get(ctx)?.byOrg.get(orgId)
  const missing: NodeId[] = []
  for (const { level, index } of nodesNeeded(compute)) {
    if (nodes.get(level, index)) continue
    const cached = level >= UPPER_LEVEL ? upper?.get(level, index) : undefined
    if (cached) nodes.set(level, index, cached)
    else missing.push({ level, index })
  }
  for (const row of await readLogNodes(ctx.db, orgId, missing)) {
    nodes.set(row.level, row.idx, row.hash)
    if (row.level >= UPPER_LEVEL) rememberUpperNode(ctx, orgId, row.level, row.idx, row.hash)
  }
  return compute(readerOf(nodes))
}

const b64 = (h: Hash) => h.toString('base64')

/** The root of the tree of `size` leaves: the stored one at the log's size, else from the nodes. */
const rootAt = (log: CommittedLog, size: number, read: NodeReader): Hash =>
  size === log.size ? log.root : treeRoot(size, read)

export async function getLogInclusionProof(
  ctx: AppContext,
  principal: Principal,
  query: LogInclusionQuery,
): Promise<LogInclusion> {
  const orgId = orgActedOn(principal, query.org_id)
  const log = await committedLog(ctx, orgId)
  assertWithinLog(log.size, query.tree_size, 'tree_size')
  const { index, tree_size } = query
  return withNodes(ctx, orgId, log, (read) => ({
    org_id: orgId,
    index,
    tree_size,
    leaf_hash: b64(read(0, index)),
    root_hash: b64(rootAt(log, tree_size, read)),
    proof: inclusionProof(index, tree_size, read).map(b64),
  }))
}

export async function getLogConsistencyProof(
  ctx: AppContext,
  principal: Principal,
  query: LogConsistencyQuery,
): Promise<LogConsistency> {
  const orgId = orgActedOn(principal, query.org_id)
  const log = await committedLog(ctx, orgId)
  assertWithinLog(log.size, query.to, 'to')
  const { from, to } = query
  return withNodes(ctx, orgId, log, (read) => ({
    org_id: orgId,
    from,
    to,
    from_root: b64(rootAt(log, from, read)),
    to_root: b64(rootAt(log, to, read)),
    proof: consistencyProof(from, to, read).map(b64),
  }))
}
