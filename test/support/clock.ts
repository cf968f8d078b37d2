import type { Clock } from '../../server/platform/clock.js'

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
