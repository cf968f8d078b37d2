import type { TrustBundle } from '../contract/rwa.js'

/*
 * What a trust bundle (GET /console/rwa/trust-bundle: docs/verification.md, "The trust bundle") vouches for:
 * which proof keys and which issuers an auditor trusts, and when. A signature by a key outside it is
 * "signature valid, issuer not trusted": it does not hold.
 */

const within = (at: string, from: string, until: string | null): boolean => {
  const t = Date.parse(at)
  return !Number.isNaN(t) && t >= Date.parse(from) && (until === null || t < Date.parse(until))
}

/**
 * Why `did` is not a trusted issuer of `jurisdiction` at `at` per the bundle, or undefined when it is.
 * `at` is when it signed (a credential's `validFrom`).
 */
export function untrustedIssuer(
  bundle: TrustBundle,
  did: string,
  jurisdiction: string | undefined,
  at: string,
): string | undefined {
  const entries = bundle.issuers.filter((i) => i.issuer_did === did)
  if (entries.length === 0) {
    return `signature valid, issuer not trusted: ${did} is not an issuer of organization ${bundle.org_id}'s trust bundle`
  }
  const ofJurisdiction = entries.filter(
    (i) => jurisdiction === undefined || i.jurisdiction_id === jurisdiction,
  )
  if (ofJurisdiction.length === 0) {
    return `signature valid, issuer not trusted: ${did} is the issuer of ${entries.map((i) => i.jurisdiction_id).join(', ')}, not of jurisdiction ${String(jurisdiction)}`
  }
  if (!ofJurisdiction.some((i) => within(at, i.valid_from, i.valid_until))) {
    return `signature valid, issuer not trusted: ${did} was not ${String(jurisdiction)}'s issuer at ${at}`
  }
  return undefined
}

/** The bundle's issuer of `jurisdiction` at `at`, if any. */
export function issuerOf(bundle: TrustBundle, jurisdiction: string, at: string): string | undefined {
  return bundle.issuers.find(
    (i) => i.jurisdiction_id === jurisdiction && within(at, i.valid_from, i.valid_until),
  )?.issuer_did
}

/** The bundle's proof key `kid` if it was not retired by `at`, else why not. */
export function trustedProofKey(
  bundle: TrustBundle,
  kid: string,
  at: string,
): { key: TrustBundle['proof_keys']['keys'][number] } | { reason: string } {
  const key = bundle.proof_keys.keys.find((k) => k.kid === kid)
  if (!key) {
    return {
      reason: `signature key not trusted: ${kid} is not a proof key of organization ${bundle.org_id}'s trust bundle`,
    }
  }
  // A key vouches for proofs until it is retired. Its start is not enforced: the first key of a
  // database is created by the first proof, a moment after that proof's `evaluated_at`.
  if (key.valid_until !== null && !(Date.parse(at) < Date.parse(key.valid_until))) {
    return { reason: `signature key not trusted: ${kid} was retired at ${key.valid_until}, before ${at}` }
  }
  return { key }
}
