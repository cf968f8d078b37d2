import { readFileSync } from 'node:fs'
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

/**
 * Requirements and the VC types that meet each, from a repeated flag: `--requirement kyc=KYCCredential
 * --requirement aml=AMLCredential,AMLCheck` is `{ kyc: ['KYCCredential'], aml: ['AMLCredential',
 * 'AMLCheck'] }`; the same requirement given twice gathers its types.
 */
export function requirementTypes(value: string | string[], flag: string): Record<string, string[]> {
  const map: Record<string, string[]> = {}
  for (const entry of Array.isArray(value) ? value : [value]) {
    const match = /^\s*([^=\s]+)\s*=\s*(.+)$/.exec(entry)
    if (!match) {
      throw new ExitError(
        EXIT.usage,
        `${flag} must be <requirement>=<VC type>[,<VC type>...], e.g. kyc=KYCCredential, got ${JSON.stringify(entry)}`,
      )
    }
    const types = list(match[2]!)
    map[match[1]!] = [...new Set([...(map[match[1]!] ?? []), ...types])]
  }
  return map
}

/** One of `values`: `--tier must be one of free, pro, enterprise, got "gold"`. */
export function oneOf(values: readonly string[]) {
  return (value: string | string[], flag: string): string => {
    const typed = text(value)
    if (values.includes(typed)) return typed
    throw new ExitError(
      EXIT.usage,
      `${flag} must be one of ${values.join(', ')}, got ${JSON.stringify(typed)}`,
    )
  }
}

/** `--max-holders 50` (every jurisdiction) or `--max-holders US=2000,SG=50`. */
export function maxHolders(value: string | string[], flag: string): number | Record<string, number> {
  const typed = text(value)
  if (/^\s*\d+\s*$/.test(typed)) return wholeNumber(typed, flag)
  const caps: Record<string, number> = {}
  for (const part of typed.split(',')) {
    const [j, n] = part.split('=').map((s) => s.trim())
    if (!j || n === undefined || !/^\d+$/.test(n)) {
      throw new ExitError(
        EXIT.usage,
        `${flag} must be a number or JURISDICTION=N pairs, got ${JSON.stringify(typed)}`,
        `e.g. ${flag} 50 or ${flag} US=2000,SG=50`,
      )
    }
    caps[j] = wholeNumber(n, flag)
  }
  return caps
}

/** `--max-holders-per-country US=2000,GB=500`: a cap per country. */
export function countryCaps(value: string | string[], flag: string): Record<string, number> {
  const caps: Record<string, number> = {}
  for (const part of list(value)) {
    const [country, n] = part.split('=').map((s) => s.trim())
    if (!country || n === undefined || !/^\d+$/.test(n)) {
      throw new ExitError(
        EXIT.usage,
        `${flag} must be COUNTRY=N pairs, got ${JSON.stringify(part)}`,
        `e.g. ${flag} US=2000,GB=500`,
      )
    }
    caps[country] = wholeNumber(n, flag)
  }
  return caps
}

/** A JSON value, for a field no other form fits: `--max-holders '{"SG":50}'`. */
export function jsonValue(value: string | string[], flag: string): unknown {
  const typed = text(value)
  try {
    return JSON.parse(typed)
  } catch {
    throw new ExitError(EXIT.usage, `${flag} must be JSON, got ${JSON.stringify(typed)}`)
  }
}

/** The text of a file (`-`: stdin), trimmed: `--vc credential.jwt`. */
export function fileText(value: string | string[], flag: string): string {
  const path = text(value)
  try {
    return readFileSync(path === '-' ? 0 : path, 'utf8').trim()
  } catch (error) {
    throw new ExitError(
      EXIT.usage,
      `${flag}: cannot read ${path === '-' ? 'stdin' : path} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
    )
  }
}
