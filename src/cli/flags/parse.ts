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
