import { describe, expect, it } from 'vitest'
import { keepRecent, useRecent } from '../../../server/platform/caches/recently-used.js'

describe('a Map kept as a least-recently-used cache', () => {
  it('forgets the least recently used past its limit, a use counting as much as a keep', () => {
    const kept = new Map<string, number>()
    keepRecent(kept, 'a', 1, 3)
    keepRecent(kept, 'b', 2, 3)
    keepRecent(kept, 'c', 3, 3)
    expect(useRecent(kept, 'a')).toBe(1)
    keepRecent(kept, 'd', 4, 3)
    // b was the least recently used: a was used after it.
    expect([...kept.keys()]).toEqual(['c', 'a', 'd'])
    expect(useRecent(kept, 'b')).toBeUndefined()
    // Keeping a key again replaces its value and makes it the most recent; nothing else goes.
    keepRecent(kept, 'c', 30, 3)
    expect([...kept.entries()]).toEqual([
      ['a', 1],
      ['d', 4],
      ['c', 30],
    ])
  })

  it('keeps entries used in turn when they fit: none is forgotten before its next use', () => {
    const kept = new Map<number, number>()
    for (let round = 0; round < 3; round++)
      for (let key = 0; key < 100; key++) {
        if (round > 0) expect(useRecent(kept, key)).toBe(key)
        else keepRecent(kept, key, key, 100)
      }
    expect(kept.size).toBe(100)
  })
})
