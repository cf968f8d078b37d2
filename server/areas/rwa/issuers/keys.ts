import { isDeepStrictEqual } from 'node:util'
import { type ResolvedKey, Unresolvable } from './resolve.js'

/*
 * An issuer keeps every key for life (docs/issuers.md, "Keys"): what a new resolution changes in its
 * stored keys. A key new to the document is added; one gone from it is retired (never deleted, so what
 * it signed before keeps verifying); one that comes back is no longer retired. A key id that names
 * another key than the one first seen under it is refused: a kid names one key for good, or a
 * credential could be verified against a key that never signed it.
 */

export interface KnownKey {
  kid: string
  jwk: ResolvedKey['jwk']
  retired_at: string | null
}

export interface KeyChanges {
  added: ResolvedKey[]
  retired: string[]
  restored: string[]
}

export function reconcileKeys(known: readonly KnownKey[], resolved: readonly ResolvedKey[]): KeyChanges {
  const byKid = new Map(known.map((k) => [k.kid, k]))
  const now = new Set(resolved.map((k) => k.kid))
  const added: ResolvedKey[] = []
  const restored: string[] = []
  for (const key of resolved) {
    const old = byKid.get(key.kid)
    if (!old) added.push(key)
    else if (!isDeepStrictEqual(old.jwk, key.jwk)) {
      throw new Unresolvable(`${key.kid} now names another key than the one first seen under that id`)
    } else if (old.retired_at !== null) restored.push(key.kid)
  }
  const retired = known.filter((k) => k.retired_at === null && !now.has(k.kid)).map((k) => k.kid)
  return { added, retired, restored }
}

export const changesNothing = (c: KeyChanges): boolean =>
  c.added.length === 0 && c.retired.length === 0 && c.restored.length === 0
