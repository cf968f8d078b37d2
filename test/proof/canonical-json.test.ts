import canonicalizeModule from 'canonicalize'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { canonicalJson, canonicalOrder } from '../../src/proof/verify.js'

/*
 * canonicalJson serializes plain JSON through a key-ordered copy and JSON.stringify, and anything else
 * through the canonicalize package (docs/performance.md, "Fifth pass: the batch"): the same bytes as
 * the package for every value, and the copy is what JSON.parse of those bytes gives.
 */

const canonicalize = ((canonicalizeModule as unknown as { default?: unknown }).default ??
  canonicalizeModule) as (input: unknown) => string | undefined

/** Keys that sort differently by UTF-16 code units than by code points, or that are array indexes. */
const awkwardKey = fc.constantFrom(
  'a',
  'B',
  '_',
  'é',
  '\u{1F600}',
  '\uFF61',
  '',
  '0',
  '1',
  '10',
  '2',
  '01',
  '4294967295',
  '-1',
  '1.5',
  '__proto__',
)
const key = fc.oneof(fc.string(), awkwardKey)
const leaf = fc.oneof(
  fc.string(),
  fc.boolean(),
  fc.constant(null),
  fc.double(), // NaN, ±Infinity and -0 among them
  fc.integer(),
  fc.constant(undefined),
)
const value = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, leaf, tie('array'), tie('object')),
  array: fc.array(tie('value'), { maxLength: 5 }),
  object: fc.dictionary(key, tie('value'), { maxKeys: 6 }),
})).value

describe('canonicalJson', () => {
  it('gives the canonicalize package’s bytes, or throws where it gives none', () => {
    fc.assert(
      fc.property(value, (v) => {
        let expected: string | undefined
        try {
          expected = canonicalize(v)
        } catch {
          expected = undefined
        }
        if (expected === undefined) expect(() => canonicalJson(v)).toThrow()
        else expect(canonicalJson(v)).toBe(expected)
      }),
      { numRuns: 2000 },
    )
  })

  it('orders a copy as JSON.parse of the canonical JSON would, or declines', () => {
    fc.assert(
      fc.property(value, (v) => {
        const ordered = canonicalOrder(v)
        if (ordered === undefined) return
        const canonical = canonicalize(v)!
        expect(JSON.stringify(ordered)).toBe(canonical)
        expect(ordered).toStrictEqual(JSON.parse(canonical))
      }),
      { numRuns: 2000 },
    )
  })

  it('declines what only canonicalize serializes right; takes nested plain JSON', () => {
    for (const v of [
      { 1: 'a', b: 2 },
      { x: [1, undefined] },
      { d: new Date(0) },
      { n: Number.NaN },
      { s: Symbol('s') },
      JSON.parse('{"__proto__":{"a":1}}'),
    ])
      expect(canonicalOrder(v)).toBeUndefined()
    const ordered = canonicalOrder({ b: { d: 1, c: [{ z: true, y: null }] }, a: 'x', u: undefined })
    expect(JSON.stringify(ordered)).toBe('{"a":"x","b":{"c":[{"y":null,"z":true}],"d":1}}')
    expect(canonicalJson({ 10: 'a', 2: 'b' })).toBe('{"10":"a","2":"b"}')
    // Past 16 keys the copy sorts them with Array.prototype.sort; below, by insertion.
    for (const count of [3, 16, 17, 40]) {
      const keys = Array.from({ length: count }, (_, i) => `k${(i * 7919) % 1000}é${i % 3 ? 'Z' : 'a'}`)
      const shuffled = Object.fromEntries(keys.map((k, i) => [k, i]))
      expect(canonicalJson(shuffled)).toBe(canonicalize(shuffled))
    }
    expect(canonicalJson(JSON.parse('{"b":1,"__proto__":{"a":1}}'))).toBe('{"__proto__":{"a":1},"b":1}')
  })
})
