import { describe, expect, it } from 'vitest'
import {
  expiredAt,
  isLastingAdminKey,
  keyStateAt,
  principalOf,
  principalStanding,
  rolesNotGrantable,
} from '../../../server/areas/billing/keys/key-rules.js'

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

describe('principals', () => {
  const at = Date.parse('2026-11-28T12:00:00.000Z')

  it('a key rerolled from another acts for the first key of the chain; any other key for itself', () => {
    expect(principalOf({ key_id: 'key_b', principal_id: 'key_a' })).toBe('key_a')
    expect(principalOf({ key_id: 'key_a', principal_id: null })).toBe('key_a')
  })

  it('stands while its current key is neither revoked nor expired', () => {
    expect(principalStanding({ revoked_at: null, expires_at: null }, at)).toBe('active')
    expect(principalStanding({ revoked_at: null, expires_at: '2026-11-28T12:00:00.001Z' }, at)).toBe('active')
    expect(principalStanding({ revoked_at: null, expires_at: '2026-11-28T12:00:00.000Z' }, at)).toBe(
      'expired',
    )
    expect(principalStanding({ revoked_at: '2026-11-28T11:00:00.000Z', expires_at: null }, at)).toBe(
      'revoked',
    )
  })
})

describe('the admin keys the operator can count on', () => {
  const at = Date.parse('2026-11-28T12:00:00.000Z')
  const admin = {
    org_id: 'admin',
    roles: ['owner'] as const,
    revoked_at: null,
    retires_at: null,
    expires_at: null,
  }

  it('an unexpired owner key of the operator organization, neither revoked nor rerolled', () => {
    expect(isLastingAdminKey(admin, at)).toBe(true)
    expect(isLastingAdminKey({ ...admin, roles: ['auditor'] }, at)).toBe(false)
    expect(isLastingAdminKey({ ...admin, org_id: 'acme' }, at)).toBe(false)
    expect(isLastingAdminKey({ ...admin, revoked_at: '2026-11-28T11:00:00.000Z' }, at)).toBe(false)
    expect(isLastingAdminKey({ ...admin, expires_at: '2026-11-28T12:00:00.000Z' }, at)).toBe(false)
    // Rerolled, it still works until its overlap ends, and then stops: not one to count on.
    expect(isLastingAdminKey({ ...admin, retires_at: '2026-11-29T12:00:00.000Z' }, at)).toBe(false)
  })
})
