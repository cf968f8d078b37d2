import { DAY_MS, MINUTE_MS } from '../../platform/clock.js'

/*
 * When a failed delivery is tried again (docs/webhooks.md, "Deliveries"): 5 s, 30 s, 2 min, 10 min,
 * 1 h and 6 h after the attempts that failed, then every 12 h, for 3 days from the delivery's creation;
 * after that it is given up (and its endpoint, failing all that time, disabled).
 */

const HOUR_MS = 60 * MINUTE_MS

/** The waits after the first, second, ... failed attempt; every later one waits 12 h. */
export const RETRY_DELAYS_MS = [5_000, 30_000, 2 * MINUTE_MS, 10 * MINUTE_MS, HOUR_MS, 6 * HOUR_MS] as const
export const LATER_DELAY_MS = 12 * HOUR_MS

/** How long a delivery is retried. */
export const RETRY_WINDOW_MS = 3 * DAY_MS

/**
 * When to try a delivery again after its `attempts`-th attempt failed at `now`, or null when its
 * 3 days are over.
 */
export function nextAttemptAt(attempts: number, createdAt: number, now: number): number | null {
  const next = now + (RETRY_DELAYS_MS[attempts - 1] ?? LATER_DELAY_MS)
  return next > createdAt + RETRY_WINDOW_MS ? null : next
}
