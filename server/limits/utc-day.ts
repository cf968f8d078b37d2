import { DAY_MS, utcDate } from '../clock.js'

let dayStart = Number.NaN
let day = ''

/**
 * `utcDate(ms)`, remembered for the day last asked about. The request path asks three times per
 * request (authentication, the limiter, the usage meter) and `toISOString()` was 3 % of the server's
 * CPU on an authenticated read in the benchmark; almost every call falls on the same day as the last.
 */
export function utcDay(ms: number): string {
  if (!(ms >= dayStart && ms < dayStart + DAY_MS)) {
    dayStart = Math.floor(ms / DAY_MS) * DAY_MS
    day = utcDate(ms)
  }
  return day
}
