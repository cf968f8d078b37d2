import type { Clock } from '../clock.js'
import type { PaymentProvider, ProviderSubscription } from '../payments/provider.js'

/** How long an answer of `activeSubscription` is reused by default (one instance). */
export const ANSWER_TTL_MS = 60_000

/**
 * The payment provider's recent answers to "has this organization an active subscription?", so a
 * burst of requests asks the provider once. Per process; a webhook that changes an organization's
 * subscription forgets its answer (on every instance, through the invalidation bus).
 */
export interface PaymentAnswerCache {
  get(orgId: string): ProviderSubscription | null | undefined
  set(orgId: string, answer: ProviderSubscription | null): void
  forget(orgId: string): void
  forgetAll(): void
}

/** Answers kept in memory for `ttlMs` (ANSWER_TTL_MS by default) on the app's clock. */
export class InMemoryPaymentAnswerCache implements PaymentAnswerCache {
  private readonly answers = new Map<string, { at: number; value: ProviderSubscription | null }>()

  constructor(
    private readonly clock: Clock,
    private readonly ttlMs = ANSWER_TTL_MS,
  ) {}

  get(orgId: string): ProviderSubscription | null | undefined {
    const cached = this.answers.get(orgId)
    if (!cached) return undefined
    if (this.clock.now() - cached.at >= this.ttlMs) {
      this.answers.delete(orgId)
      return undefined
    }
    return cached.value
  }

  set(orgId: string, answer: ProviderSubscription | null): void {
    this.answers.set(orgId, { at: this.clock.now(), value: answer })
  }

  forget(orgId: string): void {
    this.answers.delete(orgId)
  }

  forgetAll(): void {
    this.answers.clear()
  }
}

/** Asks `provider`, reusing a cached answer; a failure is thrown and never cached. */
export async function activeSubscriptionCached(
  provider: PaymentProvider,
  cache: PaymentAnswerCache,
  orgId: string,
): Promise<ProviderSubscription | null> {
  const cached = cache.get(orgId)
  if (cached !== undefined) return cached
  const answer = await provider.activeSubscription(orgId)
  cache.set(orgId, answer)
  return answer
}
