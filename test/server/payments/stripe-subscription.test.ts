import { describe, expect, it } from 'vitest'
import { tierOfPrice } from '../../../server/platform/payments/price-tiers.js'
import { stripeSubscriptionSchema } from '../../../server/platform/payments/stripe-objects.js'
import { storedStatusOf, subscriptionStateOf } from '../../../server/platform/payments/stripe-subscription.js'
import { PRICE_ENTERPRISE, PRICE_PRO, PRICES, subscriptionObject } from '../../support/stripe-fixtures.js'

const parse = (object: Record<string, any>) => stripeSubscriptionSchema.parse(object)
const START = Math.floor(Date.UTC(2026, 2, 31, 23, 30) / 1000)

describe('tierOfPrice', () => {
  it('maps the configured price ids to their tier and anything else to null', () => {
    expect(tierOfPrice(PRICE_PRO, PRICES)).toBe('pro')
    expect(tierOfPrice(PRICE_ENTERPRISE, PRICES)).toBe('enterprise')
    expect(tierOfPrice('price_other', PRICES)).toBeNull()
    expect(tierOfPrice(PRICE_ENTERPRISE, { pro: PRICE_PRO })).toBeNull()
  })
})

describe('storedStatusOf', () => {
  it.each([
    ['active', 'active'],
    ['trialing', 'trialing'],
    ['past_due', 'past_due'],
    ['canceled', 'canceled'],
    ['incomplete_expired', 'canceled'],
    ['unpaid', 'unpaid'],
    ['paused', 'unpaid'],
    ['incomplete', 'incomplete'],
    ['some_future_status', 'incomplete'],
  ])('stores Stripe status %s as %s', (stripe, stored) => {
    expect(storedStatusOf(stripe)).toBe(stored)
  })
})

describe('subscriptionStateOf', () => {
  it('reads the tier from the price and the period (UTC dates) from the item, as current API versions place it', () => {
    const sub = subscriptionObject({ id: 'sub_1', customer: 'cus_1', start: START })
    expect(subscriptionStateOf(parse(sub), PRICES)).toEqual({
      tier: 'pro',
      status: 'active',
      payment_subscription_id: 'sub_1',
      payment_customer_id: 'cus_1',
      payment_price_id: PRICE_PRO,
      current_period_start: '2026-03-31',
      current_period_end: '2026-05-01',
      cancel_at_period_end: false,
    })
  })

  it('reads the period from the subscription itself in API versions before 2025-03-31', () => {
    const sub = subscriptionObject({ start: START, legacyPeriod: true })
    expect(sub.items.data[0].current_period_start).toBeUndefined()
    const state = subscriptionStateOf(parse(sub), PRICES)
    expect([state.current_period_start, state.current_period_end]).toEqual(['2026-03-31', '2026-05-01'])
  })

  it('is free once the subscription has ended, whatever its price', () => {
    expect(subscriptionStateOf(parse(subscriptionObject({ status: 'canceled' })), PRICES)).toMatchObject({
      tier: 'free',
      status: 'canceled',
    })
    expect(
      subscriptionStateOf(parse(subscriptionObject({ status: 'incomplete_expired' })), PRICES).tier,
    ).toBe('free')
  })

  it('has a null tier for a price this service does not sell, and keeps the price id', () => {
    const state = subscriptionStateOf(parse(subscriptionObject({ price: 'price_other' })), PRICES)
    expect(state).toMatchObject({ tier: null, payment_price_id: 'price_other' })
  })

  it('takes the highest tier among several items, with that item’s price', () => {
    const sub = subscriptionObject({ price: 'price_addon' })
    sub.items.data.push(
      subscriptionObject({ price: PRICE_ENTERPRISE }).items.data[0],
      ...subscriptionObject().items.data,
    )
    expect(subscriptionStateOf(parse(sub), PRICES)).toMatchObject({
      tier: 'enterprise',
      payment_price_id: PRICE_ENTERPRISE,
    })
  })

  it('accepts an expanded customer and a cancel_at_period_end flag', () => {
    const sub = {
      ...subscriptionObject({ cancelAtPeriodEnd: true }),
      customer: { id: 'cus_9', object: 'customer', metadata: {} },
    }
    expect(subscriptionStateOf(parse(sub), PRICES)).toMatchObject({
      payment_customer_id: 'cus_9',
      cancel_at_period_end: true,
    })
  })
})
