import type {
  LogCheckpoint,
  LogCheckpointQuery,
  LogConsistency,
  LogConsistencyQuery,
  LogEntries,
  LogEntriesQuery,
  LogInclusion,
  LogInclusionQuery,
} from '../../../src/contract/audit-log.js'
import {
  consistencyRanges,
  frontierNodes,
  type Hash,
  inclusionRanges,
  type LeafRange,
  NodeMap,
  type NodeId,
  rangeHash,
  rangeNodes,
  subtreeOf,
} from '../../../src/tlog/merkle.js'
import { rawPublicKey, signCheckpoint, verifierKey } from '../../../src/tlog/note.js'
import { auditEventFromRow } from '../../pipeline/audit/from-row.js'
import { orgActedOn, type Principal } from '../../pipeline/auth/principal.js'
import type { AppContext } from '../../pipeline/context.js'
import { ApiError } from '../../platform/errors.js'
import { listLogEntries } from '../../platform/audit-log/queries.js'
import { sqlLogStore } from '../../platform/audit-log/sql-store.js'
import type { LogState, LogStore } from '../../platform/audit-log/store.js'

/*
 * The read side of the verifiable log (docs/governance.md, "The verifiable log"): checkpoints, entries and
 * proofs. Every read is of committed state, so a checkpoint covers every write committed before it was asked
 * for; proofs read O(log n) stored nodes whatever the log's size.
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

/** Where the log is read from (server/platform/audit-log/store.ts). */
const store: LogStore = sqlLogStore

/** The log as last committed. */
const committedLog = (ctx: AppContext, orgId: string): Promise<LogState> =>
  store.readCheckpoint(ctx.db, orgId)

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

/** A hash as proofs answer it: base64, encoded once for the hashes the caches below keep. */
interface Encoded {
  hash: Hash
  text: string
}
const encode = (hash: Hash): Encoded => ({ hash, text: hash.toString('base64') })

/**
 * Stored nodes at level 8 or more (each the root of 256 leaves or more), by context and
 * organization: every node is written once and never changes, and these are few (one in 256 of a
 * log's nodes) and shared by the proofs of all the leaves under them, so a proof fetches the nodes of
 * its eight lowest levels only, whatever the log's size. Past `UPPER_NODES_MAX` nodes in all, the
 * cache starts over. (A database restored under a running instance needs the instance restarted, as
 * for every cache the server keeps.)
 */
const upperNodes = new WeakMap<AppContext, { count: number; byOrg: Map<string, NodeMap<Encoded>> }>()
const UPPER_LEVEL = 8
const UPPER_NODES_MAX = 1 << 16

function rememberUpperNode(ctx: AppContext, orgId: string, level: number, index: number, node: Encoded) {
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
  nodes.set(level, index, node)
  cache.count += nodes.size - before
}

/**
 * What every proof at the log's current size shares, by context and organization until the log
 * grows: the complete subtrees its size decomposes into (its frontier, from the log row), and the
 * hashes of the right edge's incomplete ranges [start, size), which each inclusion proof at that
 * size would otherwise hash again (one a level at most).
 */
interface SizeView {
  size: number
  root: Encoded
  frontier: NodeMap<Encoded>
  rightEdge: Map<number, Encoded>
}
const sizeViews = new WeakMap<AppContext, Map<string, SizeView>>()
/** Right-edge ranges kept for one size: the proofs at a size ask for one a level at most. */
const RIGHT_EDGE_MAX = 128
/** Organizations whose view is kept (a few KB each); past this, the views start over. */
const SIZE_VIEWS_MAX = 1024

function sizeViewOf(ctx: AppContext, orgId: string, log: LogState): SizeView {
  let views = sizeViews.get(ctx)
  if (!views) {
    views = new Map()
    sizeViews.set(ctx, views)
  }
  const known = views.get(orgId)
  if (known && known.size === log.size && known.root.hash.equals(log.root)) return known
  // The view's hashes in one buffer of its own: slices of Buffer's shared pool would each keep 8 KB.
  const bytes = Buffer.alloc(32 * (1 + log.frontier.length))
  log.root.copy(bytes)
  for (const [i, hash] of log.frontier.entries()) hash.copy(bytes, 32 * (i + 1))
  const hashes = Array.from({ length: log.frontier.length }, (_, i) =>
    bytes.subarray(32 * (i + 1), 32 * (i + 2)),
  )
  const frontier = new NodeMap<Encoded>()
  for (const n of frontierNodes(log.size, hashes)) frontier.set(n.level, n.index, encode(n.hash))
  const root = encode(bytes.subarray(0, 32))
  const view = { size: log.size, root, frontier, rightEdge: new Map<number, Encoded>() }
  if (views.size >= SIZE_VIEWS_MAX) views.clear()
  views.set(orgId, view)
  return view
}

/**
 * The hashes of `ranges` of the log, from the O(log n) stored nodes they need: the frontier's and the
 * upper nodes come from memory, the others in one query. Which nodes depends only on the ranges, so
 * they are known before anything is hashed.
 */
async function rangeHashes(
  ctx: AppContext,
  orgId: string,
  view: SizeView,
  ranges: LeafRange[],
): Promise<Encoded[]> {
  // The caches may start over while this proof runs; it keeps the maps it saw.
  const upper = upperNodes.get(ctx)?.byOrg.get(orgId)
  const cached = (level: number, index: number): Encoded | undefined =>
    view.frontier.get(level, index) ?? (level >= UPPER_LEVEL ? upper?.get(level, index) : undefined)
  // Most ranges are one complete subtree, often a cached one: those are answered as they are met.
  const hashes: (Encoded | undefined)[] = []
  const fetched = new NodeMap<Encoded>()
  const missing: NodeId[] = []
  const fetch = (level: number, index: number) => {
    if (cached(level, index) || fetched.get(level, index)) return
    fetched.set(level, index, PENDING)
    missing.push({ level, index })
  }
  for (const [start, end] of ranges) {
    const node = subtreeOf(start, end)
    if (node) {
      const hash = cached(node.level, node.index)
      hashes.push(hash)
      if (!hash) fetch(node.level, node.index)
      continue
    }
    const edge = end === view.size ? view.rightEdge.get(start) : undefined
    hashes.push(edge)
    if (!edge) for (const { level, index } of rangeNodes(start, end)) fetch(level, index)
  }
  for (const stored of await store.readNodes(ctx.db, orgId, view.size, missing)) {
    const node = encode(stored.hash)
    fetched.set(stored.level, stored.index, node)
    if (stored.level >= UPPER_LEVEL) rememberUpperNode(ctx, orgId, stored.level, stored.index, node)
  }
  const nodeAt = (level: number, index: number): Encoded => {
    const node = fetched.get(level, index) ?? cached(level, index)
    // A node the store should hold and does not: a corrupt store, not a client error.
    if (!node || node === PENDING) throw new Error(`log node ${level}/${index} is missing from the store`)
    return node
  }
  const read = (level: number, index: number): Hash => nodeAt(level, index).hash
  return ranges.map(([start, end], i) => {
    const known = hashes[i]
    if (known) return known
    const node = subtreeOf(start, end)
    if (node) return nodeAt(node.level, node.index)
    const hash = encode(rangeHash(start, end, read))
    if (end === view.size) {
      if (view.rightEdge.size >= RIGHT_EDGE_MAX) view.rightEdge.clear()
      view.rightEdge.set(start, hash)
    }
    return hash
  })
}
/** Marks a node asked for and not yet read. */
const PENDING: Encoded = { hash: Buffer.alloc(0), text: '' }

/** The range of a whole tree of `size` leaves, unless it is the log's, whose root is stored. */
const rootRanges = (view: SizeView, size: number): LeafRange[] => (size === view.size ? [] : [[0, size]])

export async function getLogInclusionProof(
  ctx: AppContext,
  principal: Principal,
  query: LogInclusionQuery,
): Promise<LogInclusion> {
  const orgId = orgActedOn(principal, query.org_id)
  const log = await committedLog(ctx, orgId)
  assertWithinLog(log.size, query.tree_size, 'tree_size')
  const { index, tree_size } = query
  const view = sizeViewOf(ctx, orgId, log)
  const [leaf, ...hashes] = await rangeHashes(ctx, orgId, view, [
    [index, index + 1],
    ...rootRanges(view, tree_size),
    ...inclusionRanges(index, tree_size),
  ])
  const root = tree_size === log.size ? view.root : (hashes.shift() as Encoded)
  return {
    org_id: orgId,
    index,
    tree_size,
    leaf_hash: (leaf as Encoded).text,
    root_hash: root.text,
    proof: hashes.map((h) => h.text),
  }
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
  const view = sizeViewOf(ctx, orgId, log)
  const hashes = await rangeHashes(ctx, orgId, view, [
    ...rootRanges(view, from),
    ...rootRanges(view, to),
    ...consistencyRanges(from, to),
  ])
  const fromRoot = from === log.size ? view.root : (hashes.shift() as Encoded)
  const toRoot = to === log.size ? view.root : (hashes.shift() as Encoded)
  return {
    org_id: orgId,
    from,
    to,
    from_root: fromRoot.text,
    to_root: toRoot.text,
    proof: hashes.map((h) => h.text),
  }
}
