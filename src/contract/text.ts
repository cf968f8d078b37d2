/*
 * Text is data, never control (docs/verification.md, "Text is data, never control"): every string the API
 * takes (each field, each object key, the query and the path) is refused when it holds NUL or another C0
 * control character than tab, LF and CR, or when it is not well-formed Unicode (a lone UTF-16 surrogate).
 * PostgreSQL cannot store NUL in text at all, SQLite stores it and a C string cuts there, and a terminal
 * obeys the others; refused at the edge, no such text is ever stored, signed or shown. The server applies
 * this once to the validated input of every operation (server/platform/http/well-formed.ts).
 */

/** A surrogate code unit that is not half of a pair (`String.prototype.isWellFormed` is ES2024). */
const LONE_SURROGATE = /\p{Cs}/u

/** Why a string is refused, or null when it is acceptable text. */
export function refusedTextOf(text: string): string | null {
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i)
    if (unit < 0x20 && unit !== 0x09 && unit !== 0x0a && unit !== 0x0d) {
      return unit === 0
        ? 'holds a NUL character (U+0000)'
        : `holds the control character U+${unit.toString(16).toUpperCase().padStart(4, '0')} (only tab, LF and CR are allowed)`
    }
  }
  return LONE_SURROGATE.test(text) ? 'not well-formed Unicode (a lone UTF-16 surrogate)' : null
}

/**
 * `text` fit to be echoed in a refusal (a field path naming a key): lone surrogates replaced by U+FFFD
 * and control characters written as `\uXXXX`, so an error message never carries them back.
 */
export const printableText = (text: string): string =>
  text
    .replace(/\p{Cs}/gu, '\uFFFD')
    .replace(/\p{Cc}/gu, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`)
