import { DuplicateKeyError, parseStrictJson } from '../text/strict-json.js'

/**
 * Why a compact JWS's header or payload has a key twice in one object, or undefined. A signature
 * holds over the bytes, but readers disagree on which of the two values counts (JSON.parse keeps the
 * last), so a signed VC or list could say one thing to this verifier and another to the next: refused.
 * A part that is not JSON at all is left to the verification that follows.
 */
export function duplicateKeyInJws(jws: string): string | undefined {
  const [header, payload] = jws.split('.')
  for (const [name, part] of [
    ['header', header],
    ['payload', payload],
  ] as const) {
    try {
      parseStrictJson(Buffer.from(part ?? '', 'base64url').toString('utf8'))
    } catch (error) {
      if (error instanceof DuplicateKeyError) return `its ${name}: ${error.message}`
    }
  }
  return undefined
}
