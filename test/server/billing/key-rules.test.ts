import { describe, expect, it } from 'vitest'
import { expiredAt, keyStateAt, rolesNotGrantable } from '../../../server/billing/keys/key-rules.js'

// Over HTTP only owners create keys today, and an owner may grant every role, so the rule that a key
// never grants a role it lacks is proved here, where a non-owner creator can be named.
describe('what a key may hand on', () => {
  it('an owner may grant every role', () => {
    expect(rolesNotGrantable(['owner'], ['owner', 'issuer', 'agent', 'transfers', 'auditor'])).toEqual([])
  })

  it('a non-owner may grant only roles it holds, and never owner', () => {
    expect(rolesNotGrantable(['issuer', 'transfers'], ['transfers'])).toEqual([])
    expect(rolesNotGrantable(['issuer', 'transfers'], ['transfers', 'agent', 'owner'])).toEqual([
      'agent',
      'owner',
    ])
    expect(rolesNotGrantable(['auditor'], ['auditor', 'issuer'])).toEqual(['issuer'])
  })
})

describe("a key's life", () => {
  const at = Date.parse('2026-11-28T12:00:00.000Z')

  it('expires at its expires_at, not a millisecond before', () => {
    expect(expiredAt(null, at)).toBe(false)
    expect(expiredAt('2026-11-28T12:00:00.001Z', at)).toBe(false)
    expect(expiredAt('2026-11-28T12:00:00.000Z', at)).toBe(true)
  })

  it('reads revoked by a revocation at once, and by a reroll only once its overlap ends', () => {
    expect(keyStateAt({ revoked_at: '2026-11-28T11:00:00.000Z', retires_at: null }, at)).toEqual({
      revoked: true,
      revoked_reason: 'revoked',
    })
    expect(keyStateAt({ revoked_at: null, retires_at: '2026-11-28T13:00:00.000Z' }, at)).toEqual({
      revoked: false,
      revoked_reason: null,
    })
    expect(keyStateAt({ revoked_at: null, retires_at: '2026-11-28T12:00:00.000Z' }, at)).toEqual({
      revoked: true,
      revoked_reason: 'rerolled',
    })
  })
})
