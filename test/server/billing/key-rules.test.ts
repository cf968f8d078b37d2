import { describe, expect, it } from 'vitest'
import {
  expiredAt,
  isLastingAdminKey,
  keyStateAt,
  lastAdminVerdict,
  predecessorsInOverlap,
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
  it('counts one expiring within the horizon as gone', () => {
    const inMinutes = (m: number) => new Date(at + m * 60_000).toISOString()
    expect(isLastingAdminKey({ ...admin, expires_at: inMinutes(4) }, at, 300_000)).toBe(false)
    expect(isLastingAdminKey({ ...admin, expires_at: inMinutes(5) }, at, 300_000)).toBe(false)
    expect(isLastingAdminKey({ ...admin, expires_at: inMinutes(6) }, at, 300_000)).toBe(true)
  })
})

describe('taking away an admin key (lastAdminVerdict)', () => {
  const at = Date.parse('2026-11-28T12:00:00.000Z')
  const key = (id: string, extra: Record<string, unknown> = {}) => ({
    key_id: id,
    principal_id: null as string | null,
    org_id: 'admin',
    roles: ['owner'] as const,
    revoked_at: null as string | null,
    retires_at: null as string | null,
    expires_at: null as string | null,
    ...extra,
  })
  const last = key('key_a')
  const inSeconds = (s: number) => new Date(at + s * 1000).toISOString()

  it('the last one is revoked never, and rerolled only with an overlap of 300 s or more', () => {
    expect(lastAdminVerdict(last, [], at, null)).toBe('refused')
    for (const overlap of [0, 1, 299]) expect(lastAdminVerdict(last, [], at, overlap)).toBe('refused')
    for (const overlap of [300, 3600]) expect(lastAdminVerdict(last, [], at, overlap)).toBe('ok')
  })

  it('another principal that lasts past the overlap and 5 minutes lets any go', () => {
    expect(lastAdminVerdict(last, [key('key_b')], at, null)).toBe('ok')
    expect(lastAdminVerdict(last, [key('key_b')], at, 0)).toBe('ok')
    expect(lastAdminVerdict(last, [key('key_b', { expires_at: inSeconds(301) })], at, 1)).toBe('ok')
    // Gone too soon: within 5 minutes, or before the overlap ends.
    expect(lastAdminVerdict(last, [key('key_b', { expires_at: inSeconds(10) })], at, null)).toBe('refused')
    expect(lastAdminVerdict(last, [key('key_b', { expires_at: inSeconds(300) })], at, 0)).toBe('refused')
    expect(lastAdminVerdict(last, [key('key_b', { expires_at: inSeconds(3000) })], at, 3600)).toBe('ok')
  })

  it('neither a key of its own chain, nor one alive only inside an overlap, nor a lesser key counts', () => {
    const ownChain = key('key_a2', { principal_id: 'key_a' })
    expect(lastAdminVerdict(last, [ownChain], at, null)).toBe('refused')
    expect(lastAdminVerdict(last, [key('key_b', { retires_at: inSeconds(3600) })], at, null)).toBe('refused')
    expect(lastAdminVerdict(last, [key('key_b', { roles: ['auditor'] })], at, null)).toBe('refused')
    expect(lastAdminVerdict(last, [key('key_b', { org_id: 'acme' })], at, null)).toBe('refused')
  })

  it('a key that is no lasting admin key goes whatever remains', () => {
    expect(lastAdminVerdict(key('key_x', { retires_at: inSeconds(60) }), [], at, null)).toBe('ok')
    expect(lastAdminVerdict(key('key_x', { org_id: 'acme' }), [], at, 0)).toBe('ok')
  })
})

describe('the keys a revocation takes with it (predecessorsInOverlap)', () => {
  const at = Date.parse('2026-11-28T12:00:00.000Z')
  const later = '2026-11-28T13:00:00.000Z'
  const earlier = '2026-11-28T11:00:00.000Z'
  const k = (
    key_id: string,
    replaced_by: string | null,
    retires_at: string | null,
    revoked_at: string | null = null,
  ) => ({
    key_id,
    replaced_by,
    retires_at,
    revoked_at,
  })

  it('walks back the chain, taking those still in their overlap and skipping those that stopped', () => {
    const chain = [
      k('key_1', 'key_2', later),
      k('key_2', 'key_3', earlier), // its overlap ended
      k('key_3', 'key_4', later, earlier), // revoked already
      k('key_4', 'key_5', later),
      k('key_5', null, null),
    ]
    expect(predecessorsInOverlap(chain, 'key_5', at).map((x) => x.key_id)).toEqual(['key_4', 'key_1'])
    expect(predecessorsInOverlap(chain, 'key_2', at).map((x) => x.key_id)).toEqual(['key_1'])
    expect(predecessorsInOverlap(chain, 'key_1', at)).toEqual([])
  })

  it('ends on a loop rather than running forever', () => {
    const chain = [k('key_1', 'key_2', later), k('key_2', 'key_1', later)]
    expect(predecessorsInOverlap(chain, 'key_1', at).map((x) => x.key_id)).toEqual(['key_2'])
  })
})
