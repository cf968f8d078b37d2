import { readFileSync, readSync } from 'node:fs'
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

/** `--transfer-windows 3600=500,86400=2000`: windows of SECONDS=MAX_VOLUME. */
export function transferWindows(
  value: string | string[],
  flag: string,
): Array<{ seconds: number; max_volume: number }> {
  const typed = text(value)
  return typed.split(',').map((part) => {
    const [seconds, volume] = part.split('=').map((s) => s.trim())
    if (!seconds || volume === undefined || !/^\d+$/.test(seconds) || !/^\d+$/.test(volume)) {
      throw new ExitError(
        EXIT.usage,
        `${flag} must be SECONDS=MAX_VOLUME pairs, got ${JSON.stringify(typed)}`,
        `e.g. ${flag} 3600=500,86400=2000 (at most 500 units an hour and 2000 a day)`,
      )
    }
    return { seconds: wholeNumber(seconds, flag), max_volume: wholeNumber(volume, flag) }
  })
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

/**
 * All of stdin, read synchronously to its end. A pipe whose writer has not written yet can be in
 * non-blocking mode (`rwa dev issuer issue ... | rwa attestations submit --vc -`): a read then fails
 * with EAGAIN instead of waiting, so it waits here (10 ms at a time) and reads again.
 */
function readStdinSync(): string {
  const chunks: Buffer[] = []
  const buffer = Buffer.alloc(64 * 1024)
  const pause = new Int32Array(new SharedArrayBuffer(4))
  for (;;) {
    let n: number
    try {
      n = readSync(0, buffer, 0, buffer.length, null)
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      if (code === 'EAGAIN') {
        Atomics.wait(pause, 0, 0, 10)
        continue
      }
      if (code === 'EOF') break
      throw error
    }
    if (n === 0) break
    chunks.push(Buffer.from(buffer.subarray(0, n)))
  }
  return Buffer.concat(chunks).toString('utf8')
}

/** The text of a file (`-`: stdin), trimmed: `--vc credential.jwt`. */
export function fileText(value: string | string[], flag: string): string {
  const path = text(value)
  try {
    return (path === '-' ? readStdinSync() : readFileSync(path, 'utf8')).trim()
  } catch (error) {
    throw new ExitError(
      EXIT.usage,
      `${flag}: cannot read ${path === '-' ? 'stdin' : path} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
    )
  }
}
