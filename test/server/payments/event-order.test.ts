import { describe, expect, it } from 'vitest'
import { type AppliedSubscription, reasonToSkip } from '../../../server/platform/payments/event-order.js'

const T = Date.UTC(2026, 0, 15, 12, 0, 0)
const applied = (over: Partial<AppliedSubscription> = {}): AppliedSubscription => ({
  payment_subscription_id: 'sub_1',
  status: 'active',
  provider_updated_at: new Date(T).toISOString(),
  ...over,
})
const incoming = (
  over: { eventType?: string; eventCreatedMs?: number; subscriptionId?: string; status?: string } = {},
) => ({
  eventType: 'customer.subscription.updated',
  eventCreatedMs: T,
  subscriptionId: 'sub_1',
  status: 'active',
  ...over,
})

describe('reasonToSkip', () => {
  it('applies anything when nothing came from the provider yet', () => {
    expect(reasonToSkip(incoming({ eventCreatedMs: 0 }), undefined)).toBeNull()
    expect(reasonToSkip(incoming({ eventCreatedMs: 0 }), applied({ provider_updated_at: null }))).toBeNull()
  })

  it('skips an event created before the applied one, and applies a later one', () => {
    expect(reasonToSkip(incoming({ eventCreatedMs: T - 1000 }), applied())).toMatch(/older/)
    expect(reasonToSkip(incoming({ eventCreatedMs: T + 1000 }), applied())).toBeNull()
    // Even for another subscription: an older event never wins.
    expect(reasonToSkip(incoming({ eventCreatedMs: T - 1000, subscriptionId: 'sub_2' }), applied())).toMatch(
      /older/,
    )
  })

  it('applies an update in the same second, but not a creation of the same subscription', () => {
    expect(reasonToSkip(incoming(), applied())).toBeNull()
    expect(reasonToSkip(incoming({ eventType: 'customer.subscription.created' }), applied())).toMatch(
      /later state/,
    )
    expect(
      reasonToSkip(
        incoming({ eventType: 'customer.subscription.created', subscriptionId: 'sub_2' }),
        applied(),
      ),
    ).toBeNull()
  })

  it('never revives an ended subscription, even with a later timestamp', () => {
    const ended = applied({ status: 'canceled' })
    expect(reasonToSkip(incoming({ eventCreatedMs: T + 60_000 }), ended)).toMatch(/ended/)
    expect(reasonToSkip(incoming({ eventCreatedMs: T + 60_000, status: 'canceled' }), ended)).toBeNull()
    // A new subscription after the old one ended is applied.
    expect(reasonToSkip(incoming({ eventCreatedMs: T + 60_000, subscriptionId: 'sub_2' }), ended)).toBeNull()
  })

  it('does not let another subscription ending end the applied one', () => {
    const other = incoming({ eventCreatedMs: T + 60_000, subscriptionId: 'sub_old', status: 'canceled' })
    expect(reasonToSkip(other, applied())).toMatch(/not the one/)
    expect(reasonToSkip(other, applied({ status: 'canceled' }))).toBeNull()
  })
})
