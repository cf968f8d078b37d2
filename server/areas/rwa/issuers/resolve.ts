import {
  publicKeyOfDidKey,
  publicKeyOfMultikey,
  verificationMethodOf,
} from '../../../../src/proof/did-key.js'
import { FetchFailed, fetchForIssuer, type IssuerFetchPolicy } from '../issuer-documents/fetch.js'

/*
 * An issuer's DID resolved to its Ed25519 keys (docs/issuers.md, "Resolution"). A did:key carries its
 * key; a did:web names where its document is: `did:web:host` at https://host/.well-known/did.json,
 * `did:web:host:a:b` at https://host/a/b/did.json (the host percent-decoded, so `%3A` gives a port).
 * With --allow-http-issuers a host that is a loopback address (or `localhost`) is fetched over http, as
 * a provider on the developer's machine serves it. Of the document's `verificationMethod`, the
 * Ed25519 keys in the JsonWebKey form (`publicKeyJwk`, OKP Ed25519) or the Multikey form
 * (`publicKeyMultibase` z6Mk…) are taken; keys of other types are not listed.
 */

export interface ResolvedKey {
  kid: string
  jwk: { kty: 'OKP'; crv: 'Ed25519'; x: string }
}

/** A DID that cannot be resolved to a key: the reason, for `context.reason`. */
export class Unresolvable extends Error {}

const LOOPBACK_HOST = /^(127\.\d+\.\d+\.\d+|\[::1\]|localhost)(:\d+)?$/

/** Where a did:web's document is served, or why the DID names no place. */
export function didWebDocumentUrl(did: string, allowHttp: boolean): string {
  const [host, ...path] = did.slice('did:web:'.length).split(':')
  let decodedHost: string
  try {
    decodedHost = decodeURIComponent(host ?? '')
  } catch {
    throw new Unresolvable(`${did}: its host does not percent-decode`)
  }
  if (!decodedHost || /[/?#@\s]/.test(decodedHost))
    throw new Unresolvable(`${did}: ${decodedHost} is not a host`)
  const scheme = allowHttp && LOOPBACK_HOST.test(decodedHost) ? 'http' : 'https'
  const where = path.length === 0 ? '.well-known' : path.map((p) => decodeURIComponent(p)).join('/')
  return `${scheme}://${decodedHost}/${where}/did.json`
}

const ED25519_X = /^[A-Za-z0-9_-]{43}$/

/** The Ed25519 key of one verification method, or undefined for a key of another type. */
function keyOfMethod(did: string, method: unknown): ResolvedKey | undefined {
  if (!method || typeof method !== 'object') return undefined
  const m = method as Record<string, unknown>
  if (typeof m.id !== 'string') return undefined
  const kid = m.id.startsWith('#') ? `${did}${m.id}` : m.id
  if (!kid.startsWith(`${did}#`) || kid.length === did.length + 1) return undefined
  const jwk = m.publicKeyJwk as Record<string, unknown> | undefined
  if (jwk && typeof jwk === 'object') {
    if (jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519' || typeof jwk.x !== 'string' || !ED25519_X.test(jwk.x))
      return undefined
    if ('d' in jwk) return undefined
    return { kid, jwk: { kty: 'OKP', crv: 'Ed25519', x: jwk.x } }
  }
  if (typeof m.publicKeyMultibase === 'string') {
    const resolved = publicKeyOfMultikey(m.publicKeyMultibase)
    return 'jwk' in resolved ? { kid, jwk: resolved.jwk } : undefined
  }
  return undefined
}

/** The Ed25519 keys a DID document lists for `did`, or why it is not that DID's document. */
export function keysOfDocument(did: string, text: string): ResolvedKey[] {
  let doc: Record<string, unknown>
  try {
    doc = JSON.parse(text) as Record<string, unknown>
  } catch {
    throw new Unresolvable(`the DID document of ${did} is not JSON`)
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) {
    throw new Unresolvable(`the DID document of ${did} is not a JSON object`)
  }
  if (doc.id !== did)
    throw new Unresolvable(`the document served for ${did} is the document of ${String(doc.id)}`)
  const methods = Array.isArray(doc.verificationMethod) ? doc.verificationMethod : []
  const keys = methods.map((m) => keyOfMethod(did, m)).filter((k): k is ResolvedKey => k !== undefined)
  const kids = new Set<string>()
  for (const key of keys) {
    if (kids.has(key.kid)) throw new Unresolvable(`the DID document of ${did} lists ${key.kid} twice`)
    kids.add(key.kid)
  }
  if (keys.length === 0) throw new Unresolvable(`the DID document of ${did} lists no Ed25519 key`)
  return keys
}

/**
 * What works instead of a did:key the server cannot take: only an Ed25519 did:key names a key it verifies
 * with; a provider whose key is of another type publishes a did:web document that lists an Ed25519 key.
 */
const DID_KEY_HINT =
  "an issuer's did:key must be an Ed25519 key (did:key:z6Mk…); a provider whose keys are of another type is registered by a did:web whose document lists an Ed25519 key"

/** Resolves a DID to its Ed25519 keys now; throws `Unresolvable` saying why not. */
export async function resolveIssuerDid(did: string, policy: IssuerFetchPolicy): Promise<ResolvedKey[]> {
  if (did.startsWith('did:key:')) {
    const resolved = publicKeyOfDidKey(did)
    if ('error' in resolved) throw new Unresolvable(`${resolved.error}: ${DID_KEY_HINT}`)
    return [{ kid: verificationMethodOf(did), jwk: resolved.jwk }]
  }
  if (!did.startsWith('did:web:')) throw new Unresolvable(`${did} is neither a did:key nor a did:web`)
  const url = didWebDocumentUrl(did, policy.allowHttp)
  let text: string
  try {
    text = await fetchForIssuer(url, policy, 'application/did+json, application/json')
  } catch (error) {
    if (error instanceof FetchFailed) throw new Unresolvable(error.message)
    throw error
  }
  return keysOfDocument(did, text)
}
