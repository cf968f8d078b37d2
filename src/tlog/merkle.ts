import { createHash } from 'node:crypto'

/*
 * RFC 9162 §2.1 Merkle tree hashes, proofs and their verification, written once and shared by the
 * server (which proves) and the CLI (which verifies, offline). No npm package implements RFC 6962/9162
 * trees well enough for Node 20, so the algorithms live here, tested against the published vectors
 * (transparency-dev/merkle's testdata) and a brute-force tree.
 *
 * Trees are addressed by their complete ("perfect") subtrees: node (level, index) is the hash of
 * leaves [index·2^level, (index+1)·2^level). Such a node never changes once its last leaf is
 * appended, so a store keeps them all and any proof at any past size is a function of O(log n) of them.
 */

/** A SHA-256 hash. */
export type Hash = Buffer

/** A complete subtree: `level` 0 is a leaf. */
export interface NodeId {
  level: number
  index: number
}

/** Reads a stored complete-subtree hash. */
export type NodeReader = (level: number, index: number) => Hash

const sha256 = (...parts: Uint8Array[]): Hash => {
  const h = createHash('sha256')
  for (const part of parts) h.update(part)
  return h.digest()
}

const LEAF_PREFIX = Buffer.from([0x00])
const NODE_PREFIX = Buffer.from([0x01])

/** MTH({d}) = SHA-256(0x00 || d). */
export const hashLeaf = (data: Uint8Array | string): Hash =>
  sha256(LEAF_PREFIX, typeof data === 'string' ? Buffer.from(data, 'utf8') : data)

/** SHA-256(0x01 || left || right). */
export const hashChildren = (left: Uint8Array, right: Uint8Array): Hash => sha256(NODE_PREFIX, left, right)

/** MTH of the empty tree: SHA-256 of nothing. */
export const EMPTY_ROOT: Hash = sha256()

// Sizes are JavaScript numbers: exact up to 2^53, far beyond any organization's log. Bit tricks on
// them go through Math, not the 32-bit operators, except on numbers known to be below 2^31.

/** The largest power of two strictly smaller than n (n ≥ 2). */
const splitPoint = (n: number): number => {
  let k = 1
  while (k * 2 < n) k *= 2
  return k
}

const isPowerOfTwo = (n: number): boolean =>
  n > 0 && (n < 0x80000000 ? (n & (n - 1)) === 0 : 2 ** Math.round(Math.log2(n)) === n)
/** Whether [start, end) is a complete subtree: a power-of-two width, aligned on it. */
const isPerfect = (start: number, end: number): boolean => {
  const width = end - start
  return isPowerOfTwo(width) && start % width === 0
}
const levelOf = (width: number): number =>
  width < 0x80000000 ? 31 - Math.clz32(width) : Math.round(Math.log2(width))

/**
 * MTH(D[start:end]) following RFC 9162's split: a complete subtree is read from the store, any other
 * range is split at the largest power of two below its width. For the ranges proofs ask for (complete
 * subtrees, or a range ending at the tree's size) this reads O(log n) nodes.
 */
export function rangeHash(start: number, end: number, read: NodeReader): Hash {
  if (end <= start) throw new RangeError(`empty range [${start}, ${end})`)
  if (isPerfect(start, end)) {
    const level = levelOf(end - start)
    return read(level, start / 2 ** level)
  }
  const k = splitPoint(end - start)
  return hashChildren(rangeHash(start, start + k, read), rangeHash(start + k, end, read))
}

/** The root of the tree of `size` leaves. */
export const treeRoot = (size: number, read: NodeReader): Hash =>
  size === 0 ? EMPTY_ROOT : rangeHash(0, size, read)

/**
 * Values by node, kept by level then index: a proof looks up a few dozen nodes, and a key string
 * built for each lookup cost more than the lookups.
 */
export class NodeMap<V> {
  private readonly levels: Map<number, V>[] = []
  size = 0

  get(level: number, index: number): V | undefined {
    return this.levels[level]?.get(index)
  }

  set(level: number, index: number, value: V): void {
    let byIndex = this.levels[level]
    if (!byIndex) {
      byIndex = new Map()
      this.levels[level] = byIndex
    }
    if (!byIndex.has(index)) this.size += 1
    byIndex.set(index, value)
  }
}

/** A reader over a set of nodes (a whole tree's, for a check); a missing one is a corrupt store. */
export function readerOf(nodes: Iterable<{ level: number; index: number; hash: Hash }>): NodeReader {
  const map = new NodeMap<Hash>()
  for (const n of nodes) map.set(n.level, n.index, n.hash)
  return (level, index) => {
    const hash = map.get(level, index)
    if (!hash) throw new Error(`log node ${level}/${index} is missing from the store`)
    return hash
  }
}

/** The complete subtree that is exactly leaves [start, end), if there is one. */
export function subtreeOf(start: number, end: number): NodeId | undefined {
  if (!isPerfect(start, end)) return undefined
  const level = levelOf(end - start)
  return { level, index: start / 2 ** level }
}

/** Leaves [start, end) of a tree: a proof is the list of such ranges' hashes. */
export type LeafRange = readonly [start: number, end: number]

/**
 * The complete subtrees `rangeHash(start, end)` reads, in the order it reads them: which nodes a
 * proof needs depends only on its indices and sizes, so a store fetches them before hashing anything.
 */
export function rangeNodes(start: number, end: number, out: NodeId[] = []): NodeId[] {
  if (end <= start) throw new RangeError(`empty range [${start}, ${end})`)
  const node = subtreeOf(start, end)
  if (node) {
    out.push(node)
    return out
  }
  const k = splitPoint(end - start)
  rangeNodes(start, start + k, out)
  return rangeNodes(start + k, end, out)
}

/**
 * The ranges whose hashes are PATH(m, D[0:n]) of RFC 9162 §2.1.3.1, the audit path of leaf `index`
 * in the tree of `size`, leaf first.
 */
export function inclusionRanges(index: number, size: number): LeafRange[] {
  if (!(index >= 0 && index < size)) throw new RangeError(`index ${index} is not below tree size ${size}`)
  const ranges: LeafRange[] = []
  // Walk down from the root, taking the sibling of each subtree holding the leaf; the path lists
  // them leaf first.
  let start = 0
  let end = size
  while (end - start > 1) {
    const k = splitPoint(end - start)
    if (index < start + k) {
      ranges.push([start + k, end])
      end = start + k
    } else {
      ranges.push([start, start + k])
      start += k
    }
  }
  return ranges.reverse()
}

/** The ranges whose hashes are PROOF(m, D[0:n]) of RFC 9162 §2.1.4.1, from tree size `from` to `to`. */
export function consistencyRanges(from: number, to: number): LeafRange[] {
  if (!(from > 0 && from <= to)) throw new RangeError(`no consistency proof from ${from} to ${to}`)
  const ranges: LeafRange[] = []
  // SUBPROOF(m, D[start:end], b), iteratively: the proof lists nodes from the bottom up.
  let start = 0
  let end = to
  let m = from
  let complete = true
  while (true) {
    const n = end - start
    if (m === n) {
      if (!complete) ranges.push([start, end])
      break
    }
    const k = splitPoint(n)
    if (m <= k) {
      ranges.push([start + k, end])
      end = start + k
    } else {
      ranges.push([start, start + k])
      start += k
      m -= k
      complete = false
    }
  }
  return ranges.reverse()
}

/** PATH(m, D[0:n]) of RFC 9162 §2.1.3.1: the audit path of leaf `index` in the tree of `size`. */
export const inclusionProof = (index: number, size: number, read: NodeReader): Hash[] =>
  inclusionRanges(index, size).map(([start, end]) => rangeHash(start, end, read))

/** PROOF(m, D[0:n]) of RFC 9162 §2.1.4.1: the consistency proof from tree size `from` to `to`. */
export const consistencyProof = (from: number, to: number, read: NodeReader): Hash[] =>
  consistencyRanges(from, to).map(([start, end]) => rangeHash(start, end, read))

/** Why a proof does not hold. */
export class ProofError extends Error {}

const equal = (a: Uint8Array, b: Uint8Array): boolean => a.length === b.length && Buffer.compare(a, b) === 0

/**
 * RFC 9162 §2.1.3.2: the root an inclusion proof of `leafHash` at `index` in a tree of `size` leads
 * to. Throws ProofError for a proof of the wrong length.
 */
export function rootFromInclusionProof(index: number, size: number, leafHash: Hash, proof: Hash[]): Hash {
  if (!(Number.isSafeInteger(index) && Number.isSafeInteger(size) && index >= 0 && index < size)) {
    throw new ProofError(`index ${index} is not below tree size ${size}`)
  }
  if (leafHash.length !== 32) throw new ProofError('a leaf hash is 32 bytes')
  let fn = index
  let sn = size - 1
  let r = leafHash
  for (const p of proof) {
    if (p.length !== 32) throw new ProofError('a proof hash is 32 bytes')
    if (sn === 0) throw new ProofError('the inclusion proof is too long')
    if (fn % 2 === 1 || fn === sn) {
      r = hashChildren(p, r)
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2)
          sn = Math.floor(sn / 2)
        }
      }
    } else {
      r = hashChildren(r, p)
    }
    fn = Math.floor(fn / 2)
    sn = Math.floor(sn / 2)
  }
  if (sn !== 0) throw new ProofError('the inclusion proof is too short')
  return r
}

/** RFC 9162 §2.1.3.2: throws ProofError unless the proof leads to `root`. */
export function verifyInclusion(
  index: number,
  size: number,
  leafHash: Hash,
  proof: Hash[],
  root: Hash,
): void {
  if (!equal(rootFromInclusionProof(index, size, leafHash, proof), root)) {
    throw new ProofError(`leaf ${index} is not in the tree of size ${size} with that root`)
  }
}

/**
 * RFC 9162 §2.1.4.2: throws ProofError unless `proof` shows the tree of size `from` with `fromRoot`
 * is a prefix of the tree of size `to` with `toRoot`. A proof from the empty tree is meaningless.
 */
export function verifyConsistency(
  from: number,
  to: number,
  proof: Hash[],
  fromRoot: Hash,
  toRoot: Hash,
): void {
  if (!(Number.isSafeInteger(from) && Number.isSafeInteger(to))) throw new ProofError('sizes are integers')
  if (from > to) throw new ProofError(`tree size ${to} is smaller than ${from}: the log shrank`)
  if (from < 1) throw new ProofError('a consistency proof from the empty tree is meaningless')
  if (from === to) {
    if (proof.length > 0) throw new ProofError('equal sizes take an empty proof')
    if (!equal(fromRoot, toRoot)) throw new ProofError(`two different roots for tree size ${to}`)
    return
  }
  if (proof.some((p) => p.length !== 32)) throw new ProofError('a proof hash is 32 bytes')
  const path = [...proof]
  // 1. If first is an exact power of 2, prepend first_hash to the path.
  if (isPowerOfTwo(from)) path.unshift(fromRoot)
  if (path.length === 0) throw new ProofError('the consistency proof is empty')
  // 2-3. fn = first - 1, sn = second - 1; shift both right while LSB(fn) is set.
  let fn = from - 1
  let sn = to - 1
  while (fn % 2 === 1) {
    fn = Math.floor(fn / 2)
    sn = Math.floor(sn / 2)
  }
  // 4. fr and sr start at the first element of the path.
  const [first, ...rest] = path as [Hash, ...Hash[]]
  let fr = first
  let sr = first
  // 5. Each subsequent element c.
  for (const c of rest) {
    if (sn === 0) throw new ProofError('the consistency proof is too long')
    if (fn % 2 === 1 || fn === sn) {
      fr = hashChildren(c, fr)
      sr = hashChildren(c, sr)
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2)
          sn = Math.floor(sn / 2)
        }
      }
    } else {
      sr = hashChildren(sr, c)
    }
    fn = Math.floor(fn / 2)
    sn = Math.floor(sn / 2)
  }
  // 6. fr = first_hash, sr = second_hash, sn = 0.
  if (sn !== 0) throw new ProofError('the consistency proof is too short')
  if (!equal(fr, fromRoot))
    throw new ProofError(`the proof does not start from the root of tree size ${from}`)
  if (!equal(sr, toRoot)) throw new ProofError(`the proof does not lead to the root of tree size ${to}`)
}

/**
 * The compact range of a tree (its right frontier): the roots of the complete subtrees its size
 * decomposes into, largest first. Appending a leaf merges equal-sized subtrees; the nodes it
 * completes are returned so a store keeps them.
 */
export function appendToFrontier(
  size: number,
  frontier: Hash[],
  leafHash: Hash,
): { frontier: Hash[]; completed: { level: number; index: number; hash: Hash }[] } {
  const next = [...frontier]
  const completed = [{ level: 0, index: size, hash: leafHash }]
  let hash = leafHash
  let level = 0
  let index = size
  // While this node is a right child, it completes its parent with the frontier's last node.
  while (index % 2 === 1) {
    const left = next.pop()
    if (!left) throw new Error(`the frontier of tree size ${size} is too short`)
    hash = hashChildren(left, hash)
    level += 1
    index = Math.floor(index / 2)
    completed.push({ level, index, hash })
  }
  next.push(hash)
  return { frontier: next, completed }
}

/**
 * The complete subtrees a compact range (the frontier of tree `size`, largest first) holds, with
 * their positions: a store that keeps the frontier beside the size has these nodes at hand.
 */
export function frontierNodes(
  size: number,
  frontier: Hash[],
): { level: number; index: number; hash: Hash }[] {
  const nodes: { level: number; index: number; hash: Hash }[] = []
  let start = 0
  for (let level = 53; level >= 0; level--) {
    const width = 2 ** level
    if (size - start < width) continue
    const hash = frontier[nodes.length]
    if (!hash) throw new Error(`the frontier of tree size ${size} is too short`)
    nodes.push({ level, index: start / width, hash })
    start += width
  }
  if (nodes.length !== frontier.length) throw new Error(`the frontier of tree size ${size} is too long`)
  return nodes
}

/** The root of a tree from its compact range (the frontier, largest subtree first). */
export function rootOfFrontier(frontier: Hash[]): Hash {
  if (frontier.length === 0) return EMPTY_ROOT
  let acc = frontier[frontier.length - 1] as Hash
  for (let i = frontier.length - 2; i >= 0; i--) acc = hashChildren(frontier[i] as Hash, acc)
  return acc
}

/** The root of a list of leaf hashes, in O(n) time and O(log n) memory (for a verifier). */
export function rootOfLeaves(leafHashes: Iterable<Hash>): { size: number; root: Hash } {
  let frontier: Hash[] = []
  let size = 0
  for (const leaf of leafHashes) {
    frontier = appendToFrontier(size, frontier, leaf).frontier
    size += 1
  }
  return { size, root: rootOfFrontier(frontier) }
}
