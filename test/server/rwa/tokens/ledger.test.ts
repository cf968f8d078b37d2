import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { freezeUnits, takeUnits, unfreezeUnits } from '../../../../server/areas/rwa/tokens/ledger.js'

describe('the arithmetic of frozen units', () => {
  it('freezes up to the whole holding (at the holding passes, one more is 409)', () => {
    expect(freezeUnits({ amount: 100, frozen_amount: 40 }, 60, 'h')).toEqual({
      amount: 100,
      frozen_amount: 100,
    })
    expect(() => freezeUnits({ amount: 100, frozen_amount: 40 }, 61, "bob's holding")).toThrow(
      "Cannot freeze 61 more units of bob's holding: it holds 100, of which 40 are frozen already (at most 60 more can be frozen)",
    )
  })

  it('unfreezes up to what is frozen (all of it passes, one more is 409)', () => {
    expect(unfreezeUnits({ amount: 100, frozen_amount: 40 }, 40, 'h')).toEqual({
      amount: 100,
      frozen_amount: 0,
    })
    expect(() => unfreezeUnits({ amount: 100, frozen_amount: 40 }, 41, 'h')).toThrow(
      'Cannot unfreeze 41 units of h: only 40 are frozen',
    )
  })

  it('a forced move takes unfrozen units first, then frozen ones, which stop being frozen', () => {
    expect(takeUnits({ amount: 100, frozen_amount: 30 }, 70)).toEqual({
      left: { amount: 30, frozen_amount: 30 },
      unfrozenTaken: 70,
      frozenTaken: 0,
    })
    expect(takeUnits({ amount: 100, frozen_amount: 30 }, 71)).toEqual({
      left: { amount: 29, frozen_amount: 29 },
      unfrozenTaken: 70,
      frozenTaken: 1,
    })
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1000 }), fc.nat(1000), fc.nat(1000), (amount, f, t) => {
        const frozen = f % (amount + 1)
        const take = (t % amount) + 1
        const { left, unfrozenTaken, frozenTaken } = takeUnits({ amount, frozen_amount: frozen }, take)
        expect(unfrozenTaken + frozenTaken).toBe(take)
        expect(left.amount).toBe(amount - take)
        expect(left.frozen_amount).toBeGreaterThanOrEqual(0)
        expect(left.frozen_amount).toBeLessThanOrEqual(left.amount)
      }),
    )
  })
})
