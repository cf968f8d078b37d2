/** The app's only source of time, injected so tests move it instead of sleeping. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number
}

export const systemClock: Clock = { now: () => Date.now() }

/** A clock that only moves when told: for tests of windows, day boundaries and trial expiry. */
export class ManualClock implements Clock {
  constructor(private ms: number = Date.UTC(2026, 0, 15, 12, 0, 0)) {}
  now(): number {
    return this.ms
  }
  set(at: number | string | Date): void {
    this.ms = new Date(at).getTime()
  }
  advance(ms: number): void {
    this.ms += ms
  }
}

export const MINUTE_MS = 60_000
export const DAY_MS = 86_400_000

/** ISO 8601 timestamp in UTC. */
export const isoTimestamp = (ms: number): string => new Date(ms).toISOString()

/** The UTC calendar date `YYYY-MM-DD` of an instant. */
export const utcDate = (ms: number): string => new Date(ms).toISOString().slice(0, 10)

/** Milliseconds from `ms` to the next 00:00 UTC. */
export const msUntilUtcMidnight = (ms: number): number => DAY_MS - (ms % DAY_MS)
