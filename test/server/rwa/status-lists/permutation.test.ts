import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { permute } from '../../../../server/rwa/status-lists/permutation.js'
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
})
