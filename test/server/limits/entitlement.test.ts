import { describe, expect, it } from 'vitest'
import { TIER_LIMITS } from '../../../src/contract/limits.js'
import { entitlementOf } from '../../../server/platform/limits/entitlement.js'

const NOW = Date.UTC(2026, 0, 15)

describe('entitlementOf', () => {
  it('is free with no trial and no subscription: no governance', () => {
    expect(entitlementOf({ trialEndsAt: null, subscription: null }, NOW)).toEqual({
      tier: 'free',
      limitsTier: 'free',
      limits: TIER_LIMITS.free,
      trialActive: false,
      governance: false,
    })
  })

  it('gives Pro limits and governance during a trial, while the tier reads free', () => {
    const e = entitlementOf({ trialEndsAt: NOW + 1, subscription: null }, NOW)
    expect(e).toMatchObject({ tier: 'free', limitsTier: 'pro', trialActive: true, governance: true })
  })

  it('ends the trial exactly at trial_ends_at', () => {
    expect(entitlementOf({ trialEndsAt: NOW, subscription: null }, NOW).trialActive).toBe(false)
  })

  it('keeps the subscribed tier after the trial', () => {
    const e = entitlementOf({ trialEndsAt: NOW - 1, subscription: { tier: 'pro', status: 'active' } }, NOW)
    expect(e).toMatchObject({ tier: 'pro', limitsTier: 'pro', governance: true })
  })

  it('lets an enterprise subscription win over a running trial', () => {
    const e = entitlementOf(
      { trialEndsAt: NOW + 1, subscription: { tier: 'enterprise', status: 'active' } },
      NOW,
    )
    expect(e.limits).toEqual(TIER_LIMITS.enterprise)
  })

  it.each(['canceled', 'unpaid', 'incomplete'])('drops to free when the subscription is %s', (status) => {
    const e = entitlementOf({ trialEndsAt: null, subscription: { tier: 'pro', status } }, NOW)
    expect(e).toMatchObject({ tier: 'free', governance: false })
  })

  it.each(['trialing', 'past_due'])('keeps the tier while the provider reports %s', (status) => {
    expect(entitlementOf({ trialEndsAt: null, subscription: { tier: 'pro', status } }, NOW).tier).toBe('pro')
  })
})
