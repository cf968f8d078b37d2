/** The app's only source of time, injected so tests move it instead of sleeping. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number
}

export const systemClock: Clock = { now: () => Date.now() }

export const MINUTE_MS = 60_000
export const HOUR_MS = 3_600_000
export const DAY_MS = 86_400_000

/** The instants `isoTimestamp` builds from its remembered second: years 1970 to 9999 (four digits). */
const LAST_MEMO_MS = 253_402_300_800_000

let memoSecond = Number.NaN
let memoPrefix = ''

/**
 * ISO 8601 timestamp in UTC, as `new Date(ms).toISOString()` writes it. The text of the second last
 * asked about is remembered (`2026-12-04T22:15:39.`), and only the milliseconds are written: a write
 * stamps several rows in the same second (a batch of 1,000 credentials, thousands), and a `Date` and
 * its `toISOString()` each time were 1–1.6 % of a batch operation.
 */
export function isoTimestamp(ms: number): string {
  if (!(ms >= 0 && ms < LAST_MEMO_MS)) return new Date(ms).toISOString()
  const whole = Math.trunc(ms)
  const fraction = whole % 1000
  const second = whole - fraction
  if (second !== memoSecond) {
    memoPrefix = new Date(second).toISOString().slice(0, 20)
    memoSecond = second
  }
  return `${memoPrefix}${fraction < 10 ? '00' : fraction < 100 ? '0' : ''}${fraction}Z`
}

let memoDayStart = Number.NaN
let memoDate = ''

/**
 * The UTC calendar date `YYYY-MM-DD` of an instant. The date of the day last asked about is
 * remembered: the request path asks several times per request and almost always about the same day,
 * and `toISOString()` was 3 % of the server's CPU on an authenticated read in the benchmark.
 */
export function utcDate(ms: number): string {
  if (!(ms >= memoDayStart && ms < memoDayStart + DAY_MS)) {
    memoDayStart = Math.floor(ms / DAY_MS) * DAY_MS
    memoDate = new Date(ms).toISOString().slice(0, 10)
  }
  return memoDate
}

/** Milliseconds from `ms` to the next 00:00 UTC. */
export const msUntilUtcMidnight = (ms: number): number => DAY_MS - (ms % DAY_MS)
