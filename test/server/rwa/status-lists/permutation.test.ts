import { createHmac, randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { permute, TABLES_KEPT, tableKept } from '../../../../server/areas/rwa/status-lists/permutation.js'
import { STATUS_LIST_MIN_BITS } from '../../../../src/proof/status-list.js'

describe('the status list index permutation', () => {
  it('maps every ordinal of a full list to a distinct index inside it', () => {
    const key = randomBytes(32)
    const seen = new Uint8Array(STATUS_LIST_MIN_BITS)
    // Counted, not asserted per ordinal: 131,072 expect() calls doubled the time (23 s against 11 s loaded).
    let outside = 0
    for (let n = 0; n < STATUS_LIST_MIN_BITS; n++) {
      const index = permute(key, n, STATUS_LIST_MIN_BITS)
      if (Number.isInteger(index) && index >= 0 && index < STATUS_LIST_MIN_BITS) seen[index]!++
      else outside++
    }
    expect(outside).toBe(0)
    expect(seen.every((count) => count === 1)).toBe(true)
  })

  it('depends on the key, and does not follow the order of issuance', () => {
    const a = Array.from({ length: 20 }, (_, n) => permute(Buffer.alloc(32, 1), n, STATUS_LIST_MIN_BITS))
    const b = Array.from({ length: 20 }, (_, n) => permute(Buffer.alloc(32, 2), n, STATUS_LIST_MIN_BITS))
    expect(a).not.toEqual(b)
    expect([...a].sort((x, y) => x - y)).not.toEqual(a)
    expect(() => permute(Buffer.alloc(32), STATUS_LIST_MIN_BITS, STATUS_LIST_MIN_BITS)).toThrow(RangeError)
  })

  it('keeps the indexes lists already gave out: the same as one HMAC per round, whichever form the key has', () => {
    // Pinned from the permutation as first written (an HMAC-SHA256 per round, no table): entries
    // already issued keep their index, so a later entry can never land on one of them.
    const key = Buffer.alloc(32, 7)
    const ordinals = [0, 1, 2, 3, 4, 1000, 131_071]
    const pinned = [35_753, 67_872, 53_689, 43_181, 110_667, 78_917, 41_876]
    expect(ordinals.map((n) => permute(key, n, STATUS_LIST_MIN_BITS))).toEqual(pinned)
    expect(ordinals.map((n) => permute(key.toString('base64'), n, STATUS_LIST_MIN_BITS))).toEqual(pinned)
    expect([0, 1, 2, 3, 4].map((n) => permute(key, n, 1000))).toEqual([692, 640, 350, 0, 757])
    const reference = (k: Buffer, n: number, capacity: number) => {
      const round = (r: number, half: number) => {
        const d = createHmac('sha256', k)
          .update(Uint8Array.of(r, half >> 8, half & 0xff))
          .digest()
        return ((d[0]! << 8) | d[1]!) & 511
      }
      let x = n
      do {
        let [left, right] = [x >> 9, x & 511]
        for (let r = 0; r < 4; r++) [left, right] = [right, left ^ round(r, right)]
        x = (left << 9) | right
      } while (x >= capacity)
      return x
    }
    const other = randomBytes(32)
    for (let n = 0; n < 3000; n += 7)
      expect(permute(other.toString('base64'), n, STATUS_LIST_MIN_BITS)).toBe(
        reference(other, n, STATUS_LIST_MIN_BITS),
      )
  })

  it('keeps the tables of thousands of lists issuing in turn, forgetting the least recently used first', () => {
    // 2,000 lists issuing one entry each, in turn, twice (a benchmark's organizations): every list's
    // table is still there for its next entry (at 1,024 kept, each was gone by then).
    const keys = Array.from({ length: 2000 }, () => randomBytes(32))
    for (let n = 0; n < 2; n++) for (const key of keys) permute(key, n, STATUS_LIST_MIN_BITS)
    expect(keys.every((key) => tableKept(key))).toBe(true)
    // Past TABLES_KEPT, the least recently used goes: of two lists, the one used again stays.
    const [used, idle] = [randomBytes(32), randomBytes(32)]
    permute(used, 0, STATUS_LIST_MIN_BITS)
    permute(idle, 0, STATUS_LIST_MIN_BITS)
    // Now the kept tables are exactly these two and the TABLES_KEPT - 2 lists after them.
    for (let i = 2; i < TABLES_KEPT; i++) permute(randomBytes(32), 0, STATUS_LIST_MIN_BITS)
    expect(tableKept(used) && tableKept(idle)).toBe(true)
    permute(used, 1, STATUS_LIST_MIN_BITS)
    permute(randomBytes(32), 0, STATUS_LIST_MIN_BITS)
    expect(tableKept(used)).toBe(true)
    expect(tableKept(idle)).toBe(false)
  })
})
