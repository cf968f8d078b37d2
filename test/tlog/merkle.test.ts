import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import {
  appendToFrontier,
  consistencyProof,
  consistencyRanges,
  EMPTY_ROOT,
  frontierNodes,
  type Hash,
  hashChildren,
  hashLeaf,
  inclusionProof,
  inclusionRanges,
  type LeafRange,
  type NodeId,
  type NodeReader,
  ProofError,
  rangeNodes,
  readerOf,
  rootFromInclusionProof,
  rootOfFrontier,
  rootOfLeaves,
  treeRoot,
  verifyConsistency,
  verifyInclusion,
} from '../../src/tlog/merkle.js'

/*
 * The RFC 9162 algorithms of src/tlog against (1) transparency-dev/merkle's published RFC 6962 vectors
 * and (2) a brute-force tree written straight from the RFC's recursive definitions, for every size
 * from 1 to 300 and every index and earlier size in it.
 */

interface InclusionVector {
  file: string
  leafIdx: number
  treeSize: number
  root: string | null
  leafHash: string | null
  proof: string[] | null
  wantErr: boolean
}
interface ConsistencyVector {
  file: string
  size1: number
  size2: number
  root1: string | null
  root2: string | null
  proof: string[] | null
  wantErr: boolean
}
const vectors = JSON.parse(readFileSync(new URL('./rfc6962-vectors.json', import.meta.url), 'utf8')) as {
  inclusion: InclusionVector[]
  consistency: ConsistencyVector[]
}
const b64 = (s: string | null): Hash => Buffer.from(s ?? '', 'base64')

const outcome = (check: () => void): 'ok' | 'refused' => {
  try {
    check()
    return 'ok'
  } catch (error) {
    if (error instanceof ProofError) return 'refused'
    throw error
  }
}

// RFC 9162 §2.1.1-§2.1.4.1, literally: MTH, PATH and PROOF over a list of leaf hashes.
const k = (n: number) => 2 ** Math.ceil(Math.log2(n) - 1)
function naiveMth(leaves: Hash[], memo = new Map<string, Hash>(), lo = 0, hi = leaves.length): Hash {
  const key = `${lo}:${hi}`
  const known = memo.get(key)
  if (known) return known
  const n = hi - lo
  const hash =
    n === 0
      ? EMPTY_ROOT
      : n === 1
        ? (leaves[lo] as Hash)
        : hashChildren(naiveMth(leaves, memo, lo, lo + k(n)), naiveMth(leaves, memo, lo + k(n), hi))
  memo.set(key, hash)
  return hash
}
function naivePath(m: number, leaves: Hash[], memo: Map<string, Hash>, lo: number, hi: number): Hash[] {
  const n = hi - lo
  if (n === 1) return []
  const split = k(n)
  return m < split
    ? [...naivePath(m, leaves, memo, lo, lo + split), naiveMth(leaves, memo, lo + split, hi)]
    : [...naivePath(m - split, leaves, memo, lo + split, hi), naiveMth(leaves, memo, lo, lo + split)]
}
function naiveSubproof(
  m: number,
  leaves: Hash[],
  memo: Map<string, Hash>,
  lo: number,
  hi: number,
  b: boolean,
): Hash[] {
  const n = hi - lo
  if (m === n) return b ? [] : [naiveMth(leaves, memo, lo, hi)]
  const split = k(n)
  return m <= split
    ? [...naiveSubproof(m, leaves, memo, lo, lo + split, b), naiveMth(leaves, memo, lo + split, hi)]
    : [
        ...naiveSubproof(m - split, leaves, memo, lo + split, hi, false),
        naiveMth(leaves, memo, lo, lo + split),
      ]
}

describe('RFC 6962 published vectors (transparency-dev/merkle testdata)', () => {
  it('every inclusion vector verifies or is refused as it should', () => {
    expect(vectors.inclusion.length).toBeGreaterThan(90)
    for (const v of vectors.inclusion) {
      const got = outcome(() =>
        verifyInclusion(v.leafIdx, v.treeSize, b64(v.leafHash), (v.proof ?? []).map(b64), b64(v.root)),
      )
      expect(got, v.file).toBe(v.wantErr ? 'refused' : 'ok')
    }
  })

  it('every consistency vector verifies or is refused as it should', () => {
    expect(vectors.consistency.length).toBeGreaterThan(90)
    for (const v of vectors.consistency) {
      const got = outcome(() =>
        verifyConsistency(v.size1, v.size2, (v.proof ?? []).map(b64), b64(v.root1), b64(v.root2)),
      )
      expect(got, v.file).toBe(v.wantErr ? 'refused' : 'ok')
    }
  })

  it('the prover produces the published proofs from the published leaves', () => {
    // transparency-dev/merkle testonly.LeafInputs(); the vectors are proofs over these 8 leaves.
    const inputs = [
      '',
      '00',
      '10',
      '2021',
      '3031',
      '40414243',
      '5051525354555657',
      '606162636465666768696a6b6c6d6e6f',
    ]
    const store = new Map<string, Hash>()
    let frontier: Hash[] = []
    inputs.forEach((hex, i) => {
      const step = appendToFrontier(i, frontier, hashLeaf(Buffer.from(hex, 'hex')))
      frontier = step.frontier
      for (const n of step.completed) store.set(`${n.level}/${n.index}`, n.hash)
    })
    const read = readerOf([...store].map(([key, hash]) => ({ ...idOf(key), hash })))
    expect(treeRoot(8, read).toString('hex')).toBe(
      '5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328',
    )
    expect(treeRoot(3, read).toString('hex')).toBe(
      'aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77',
    )
    for (const v of vectors.inclusion.filter((v) => !v.wantErr && v.treeSize <= 8)) {
      expect(
        inclusionProof(v.leafIdx, v.treeSize, read).map((h) => h.toString('base64')),
        v.file,
      ).toEqual(v.proof ?? [])
    }
    for (const v of vectors.consistency.filter((v) => !v.wantErr && v.size1 > 0 && v.size2 <= 8)) {
      expect(
        consistencyProof(v.size1, v.size2, read).map((h) => h.toString('base64')),
        v.file,
      ).toEqual(v.proof ?? [])
    }
  })
})

// Comparing hex strings: vitest's deep equality on Buffers is too slow for 45,000 proofs.
const hex = (hashes: Hash[]) => hashes.map((h) => h.toString('hex')).join(',')
const hex2 = (nodes: NodeId[]) => nodes.map((n) => `${n.level}/${n.index}`).join(',')

/** The nodes a computation reads, in the order it first reads each. */
const readsOf = (compute: (read: NodeReader) => unknown, read: NodeReader): NodeId[] => {
  const seen = new Set<string>()
  const reads: NodeId[] = []
  compute((level, index) => {
    const key = `${level}/${index}`
    if (!seen.has(key)) {
      seen.add(key)
      reads.push({ level, index })
    }
    return read(level, index)
  })
  return reads
}

/** The nodes a store fetches for `ranges`, known from the ranges alone, without reading any. */
const nodesOf = (ranges: LeafRange[]): NodeId[] => {
  const seen = new Set<string>()
  return ranges
    .flatMap(([start, end]) => rangeNodes(start, end))
    .filter(({ level, index }) => !seen.has(`${level}/${index}`) && Boolean(seen.add(`${level}/${index}`)))
}

const idOf = (key: string) => {
  const [level, index] = key.split('/').map(Number) as [number, number]
  return { level, index }
}

describe('sizes past 2^31', () => {
  it('finds the complete subtrees of ranges wider than 32 bits', () => {
    // Leaf 2^33 + 1 of 2^33 + 2: its sibling leaf and the subtree of the first 2^33 leaves.
    expect(nodesOf(inclusionRanges(2 ** 33 + 1, 2 ** 33 + 2))).toEqual([
      { level: 0, index: 2 ** 33 },
      { level: 33, index: 0 },
    ])
    // 3 * 2^31 leaves are not a complete subtree: 2^32 of them, then 2^31.
    expect(rangeNodes(0, 3 * 2 ** 31)).toEqual([
      { level: 32, index: 0 },
      { level: 31, index: 2 },
    ])
  })
})

describe('against a brute-force tree, sizes 1..300', () => {
  const N = 300
  const leaves = Array.from({ length: N }, (_, i) => hashLeaf(`leaf ${i}`))
  const memo = new Map<string, Hash>()
  const store = new Map<string, Hash>()
  const frontiers: Hash[][] = [[]]
  for (let i = 0; i < N; i++) {
    const step = appendToFrontier(i, frontiers[i] as Hash[], leaves[i] as Hash)
    frontiers.push(step.frontier)
    for (const n of step.completed) store.set(`${n.level}/${n.index}`, n.hash)
  }
  const read = readerOf([...store].map(([key, hash]) => ({ ...idOf(key), hash })))
  const roots = Array.from({ length: N + 1 }, (_, n) => naiveMth(leaves.slice(0, n), new Map()))

  it('roots from the stored nodes, the frontier and a leaf list all equal MTH', () => {
    for (let n = 0; n <= N; n++) {
      const want = roots[n] as Hash
      expect(treeRoot(n, read).equals(want), `size ${n}`).toBe(true)
      expect(rootOfFrontier(frontiers[n] as Hash[]).equals(want), `frontier ${n}`).toBe(true)
      expect(rootOfLeaves(leaves.slice(0, n)).root.equals(want), `leaves ${n}`).toBe(true)
      // The frontier holds one node per set bit of the size: O(log n) state per organization.
      expect(frontiers[n]?.length).toBe(n.toString(2).replaceAll('0', '').length)
      // And each is the stored node frontierNodes places it at.
      for (const node of frontierNodes(n, frontiers[n] as Hash[])) {
        expect(node.hash.equals(read(node.level, node.index)), `size ${n}: ${node.level}/${node.index}`).toBe(
          true,
        )
      }
    }
    expect(() => frontierNodes(5, [leaves[0] as Hash])).toThrow(/too short/)
    expect(() => frontierNodes(4, frontiers[5] as Hash[])).toThrow(/too long/)
  })

  it('every inclusion proof is PATH(m, D[n]), verifies, and reads O(log n) nodes', () => {
    for (let n = 1; n <= N; n++) {
      const sub = leaves.slice(0, n)
      for (let m = 0; m < n; m++) {
        const proof = inclusionProof(m, n, read)
        const want = naivePath(m, sub, memo, 0, n)
        if (hex(proof) !== hex(want)) expect(hex(proof), `${m} in ${n}`).toBe(hex(want))
        verifyInclusion(m, n, leaves[m] as Hash, proof, roots[n] as Hash)
        // The nodes a store fetches before proving are exactly those the proof reads.
        const needed = nodesOf(inclusionRanges(m, n))
        const reads = readsOf((r) => inclusionProof(m, n, r), read)
        if (hex2(needed) !== hex2(reads)) expect(needed, `${m} in ${n}`).toEqual(reads)
        if (needed.length > 2 * Math.log2(n) + 2)
          expect(needed.length, `${m} in ${n}`).toBeLessThanOrEqual(2 * Math.log2(n) + 2)
      }
    }
  })

  it('every consistency proof is PROOF(m, D[n]) and verifies', () => {
    for (let n = 1; n <= N; n++) {
      const sub = leaves.slice(0, n)
      const subMemo = new Map<string, Hash>()
      for (let m = 1; m <= n; m++) {
        const proof = consistencyProof(m, n, read)
        const want = m === n ? [] : naiveSubproof(m, sub, subMemo, 0, n, true)
        if (hex(proof) !== hex(want)) expect(hex(proof), `${m} to ${n}`).toBe(hex(want))
        verifyConsistency(m, n, proof, roots[m] as Hash, roots[n] as Hash)
        const needed = nodesOf(consistencyRanges(m, n))
        const reads = readsOf((r) => consistencyProof(m, n, r), read)
        if (hex2(needed) !== hex2(reads)) expect(needed, `${m} to ${n}`).toEqual(reads)
      }
    }
  })

  it('a flipped bit, a wrong index, size or root is refused', () => {
    for (const [m, n] of [
      [0, 1],
      [5, 6],
      [64, 65],
      [130, 300],
      [299, 300],
    ] as const) {
      const proof = inclusionProof(m, n, read)
      const root = roots[n] as Hash
      for (let i = 0; i < proof.length; i++) {
        const bad = proof.map((h) => Buffer.from(h))
        const flipped = bad[i] as Hash
        flipped[7] = (flipped[7] as number) ^ 1
        expect(outcome(() => verifyInclusion(m, n, leaves[m] as Hash, bad, root))).toBe('refused')
      }
      expect(outcome(() => verifyInclusion(m, n, leaves[(m + 1) % n] as Hash, proof, root))).toBe(
        n === 1 ? 'ok' : 'refused',
      )
      // The leaf claimed at another index; a proof's size is bound by the checkpoint's root, not the proof.
      if (n > 1)
        expect(outcome(() => verifyInclusion((m + 1) % n, n, leaves[m] as Hash, proof, root))).toBe('refused')
      expect(outcome(() => verifyInclusion(m, n, leaves[m] as Hash, [...proof, root], root))).toBe('refused')
      expect(outcome(() => rootFromInclusionProof(n, n, leaves[0] as Hash, proof))).toBe('refused')
    }
    for (const [m, n] of [
      [1, 2],
      [3, 7],
      [64, 300],
      [200, 299],
    ] as const) {
      const proof = consistencyProof(m, n, read)
      for (let i = 0; i < proof.length; i++) {
        const bad = proof.map((h) => Buffer.from(h))
        const flipped = bad[i] as Hash
        flipped[0] = (flipped[0] as number) ^ 0x80
        expect(outcome(() => verifyConsistency(m, n, bad, roots[m] as Hash, roots[n] as Hash))).toBe(
          'refused',
        )
      }
      expect(outcome(() => verifyConsistency(m, n, proof, roots[m - 1] as Hash, roots[n] as Hash))).toBe(
        'refused',
      )
      expect(outcome(() => verifyConsistency(m, n, proof, roots[m] as Hash, roots[n - 1] as Hash))).toBe(
        'refused',
      )
      // A log that shrank is never consistent.
      expect(outcome(() => verifyConsistency(n, m, [], roots[n] as Hash, roots[m] as Hash))).toBe('refused')
    }
  })
})
