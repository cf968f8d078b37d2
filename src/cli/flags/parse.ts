import { EXIT, ExitError } from '../exit-error.js'

/*
 * The parsers of flag values (see Flag.parse in ./flag.ts): each turns the text as typed into the
 * request's value, or fails with exit 2 naming the flag and quoting the value as typed.
 */

const text = (value: string | string[]): string => (Array.isArray(value) ? value.join(',') : value)

/**
 * A whole number. Beyond ±(2^53 − 1) a JSON number no longer holds every whole number exactly (the
 * API's unit counts stop there too), so a larger one is refused here, with the limit.
 */
export function wholeNumber(value: string | string[], flag: string): number {
  const typed = text(value).trim()
  if (!/^[-+]?\d+$/.test(typed)) {
    throw new ExitError(EXIT.usage, `${flag} must be a whole number, got ${JSON.stringify(text(value))}`)
  }
  const n = Number(typed)
  if (!Number.isSafeInteger(n)) {
    const [bound, limit] = n > 0 ? ['most', Number.MAX_SAFE_INTEGER] : ['least', Number.MIN_SAFE_INTEGER]
    throw new ExitError(EXIT.usage, `${flag} must be at ${bound} ${limit}, got ${typed}`)
  }
  return n
}

/** The units of a duration, in milliseconds. */
const DURATION_UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }

/**
 * A duration as every duration flag of the CLI takes it: a whole number and a unit, `s`, `m`, `h` or
 * `d` (`10s`, `30m`, `24h`, `7d`); answers milliseconds.
 */
export function duration(value: string | string[], flag: string): number {
  const typed = text(value).trim()
  const match = /^(\d{1,9})([smhd])$/.exec(typed)
  if (!match || Number(match[1]) === 0) {
    throw new ExitError(
      EXIT.usage,
      `${flag} must be a duration such as 24h, 30m or 10s, got ${JSON.stringify(text(value))}`,
    )
  }
  return Number(match[1]) * DURATION_UNITS[match[2]!]!
}

/** A duration from now, as the instant it ends (ISO 8601): `--expires-in 24h`. */
export function instantIn(value: string | string[], flag: string): string {
  return new Date(Date.now() + duration(value, flag)).toISOString()
}

/** A duration in whole seconds: `--overlap 1h` is 3600. */
export function durationSeconds(value: string | string[], flag: string): number {
  return duration(value, flag) / 1000
}

/** A number, decimals allowed. */
export function decimal(value: string | string[], flag: string): number {
  const typed = text(value)
  const n = Number(typed)
  if (typed.trim() === '' || !Number.isFinite(n)) {
    throw new ExitError(EXIT.usage, `${flag} must be a number, got ${JSON.stringify(typed)}`)
  }
  return n
}

/** A comma-separated list, from one value or a repeated flag's values; blanks are dropped. */
export function list(value: string | string[]): string[] {
  return (Array.isArray(value) ? value : [value])
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter((v) => v !== '')
}
