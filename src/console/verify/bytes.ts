/*
 * Bytes for verifying in the page with WebCrypto (no Node Buffer): UTF-8, base64 (standard and url),
 * hex and SHA-256. The same functions run under Node in the tests, which have the same globals.
 */

export const utf8 = (text: string): Uint8Array<ArrayBuffer> => new TextEncoder().encode(text)

export const fromUtf8 = (bytes: Uint8Array): string => new TextDecoder('utf-8', { fatal: true }).decode(bytes)

/** Standard base64 (with padding) to bytes; undefined unless it is the canonical encoding of them. */
export function fromBase64(text: string): Uint8Array<ArrayBuffer> | undefined {
  let binary: string
  try {
    binary = atob(text)
  } catch {
    return undefined
  }
  const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0))
  return toBase64(bytes) === text ? bytes : undefined
}

export const toBase64 = (bytes: Uint8Array): string => btoa(String.fromCharCode(...bytes))

/** base64url without padding (JWS parts) to bytes; undefined unless canonical. */
export function fromBase64Url(text: string): Uint8Array<ArrayBuffer> | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return undefined
  const standard = text.replace(/-/g, '+').replace(/_/g, '/')
  const padded = standard + '='.repeat((4 - (standard.length % 4)) % 4)
  const bytes = fromBase64(padded)
  return bytes && toBase64(bytes).replace(/=+$/, '') === standard ? bytes : undefined
}

export const toHex = (bytes: Uint8Array): string =>
  Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')

export async function sha256(...parts: Uint8Array[]): Promise<Uint8Array<ArrayBuffer>> {
  const length = parts.reduce((n, p) => n + p.length, 0)
  const all = new Uint8Array(length)
  let at = 0
  for (const part of parts) {
    all.set(part, at)
    at += part.length
  }
  return new Uint8Array(await crypto.subtle.digest('SHA-256', all))
}

export const equalBytes = (a: Uint8Array, b: Uint8Array): boolean =>
  a.length === b.length && a.every((byte, i) => byte === b[i])

/** An Ed25519 signature check with WebCrypto over a raw 32-byte public key. */
export async function ed25519Verify(
  publicKey: Uint8Array<ArrayBuffer>,
  signature: Uint8Array<ArrayBuffer>,
  message: Uint8Array<ArrayBuffer>,
): Promise<boolean> {
  try {
    const key = await crypto.subtle.importKey('raw', publicKey, { name: 'Ed25519' }, false, ['verify'])
    return await crypto.subtle.verify({ name: 'Ed25519' }, key, signature, message)
  } catch {
    return false
  }
}
