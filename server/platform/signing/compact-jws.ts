import { type KeyObject, sign } from 'node:crypto'

/*
 * Compact JWS (RFC 7515) with EdDSA over Ed25519, signed by node:crypto directly: the same bytes jose
 * produces (base64url of the header's JSON, of the payload, and of the signature, joined by dots; an
 * Ed25519 signature is deterministic), at about half the CPU of jose's WebCrypto path.
 */

const b64u = (data: string | Buffer): string => Buffer.from(data).toString('base64url')

/** Signs `payload` (its exact bytes) under the protected `header` with an Ed25519 key: a compact JWS. */
export function signCompactEdDsa(
  header: { alg: 'EdDSA'; [name: string]: unknown },
  payload: string,
  key: KeyObject,
): string {
  const input = `${b64u(JSON.stringify(header))}.${b64u(payload)}`
  return `${input}.${sign(null, Buffer.from(input), key).toString('base64url')}`
}

/**
 * A compact JWS stored without its payload (RFC 7515 Appendix F, `header..signature`): the payload is
 * the signed document stored beside it, so keeping it again inside the JWS would store it twice.
 */
export function detachPayload(jws: string): string {
  const [header, , signature] = jws.split('.')
  return `${header}..${signature}`
}

/** The compact JWS of a detached one and its payload; a JWS that still carries its payload is kept. */
export function attachPayload(jws: string, payload: string): string {
  const [header, encoded, signature] = jws.split('.')
  return encoded === '' ? `${header}.${b64u(payload)}.${signature}` : jws
}
