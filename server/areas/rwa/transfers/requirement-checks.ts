import { type ComplianceCheck, TITLE_VERIFICATION } from '../../../../src/contract/rwa.js'

/*
 * The checks a jurisdiction's rules make: trust between the two sides, the token's credential, and
 * each listed requirement met by an attestation the jurisdiction recognises. Pure: facts in, checks out.
 */

export const CREDENTIAL_VALID = 'credential_valid'
export const TRUST = 'trust'

export interface TrustFacts {
  trust_id: string
  from_jurisdiction: string
  to_jurisdiction: string
  mutual: boolean
}

export interface AttestationFacts {
  attestation_id: string
  /** The jurisdiction that issued it. */
  jurisdiction: string
  subject_did: string
  type: string
  credential_id: string | null
  issued_at: string
  valid_until: string | null
  /** When it was revoked (migration 0009); a revoked attestation meets no requirement. */
  revoked_at?: string | null
}

export interface CredentialFacts {
  credential_id: string
  status: string
  valid_until: string | null
  revoked_at: string | null
  revocation_reason: string | null
}

/**
 * An attestation of a trusted issuer (docs/issuers.md, "Evaluation"), as verified again for this
 * evaluation: what its issuer trusts it for now, where, and why it cannot be relied on, if it cannot.
 */
export interface ExternalAttestationFacts {
  attestation_id: string
  issuer_id: string
  issuer_did: string
  subject_did: string
  /** The requirements its issuer is trusted for by its VC types now (its recorded type when it does not verify). */
  requirements: readonly string[]
  /** The jurisdictions its issuer is trusted in. */
  jurisdictions: readonly string[]
  /** Why it cannot be relied on now (its issuer, signature, validity or status), or null. */
  problem: string | null
}

/** What a requirement check looks at: who receives, which credential, the attestations and trust. */
export interface RequirementFacts {
  /** The subject of every requirement but `title_verification`. */
  recipient_did: string
  /**
   * The DIDs of the recipient's identity, itself included: an attestation about any of them counts
   * for it (docs/identities.md). Absent: the recipient alone.
   */
  recipient_dids?: readonly string[]
  /** The subject of `title_verification`: the token's credential. */
  credential_id: string
  /** Active trust relations of the organization (others are ignored if passed). */
  trust: readonly TrustFacts[]
  /** Candidate attestations; those of other subjects or types are ignored. */
  attestations: readonly AttestationFacts[]
  /** Trusted issuers' attestations of the recipient (none when absent). */
  external?: readonly ExternalAttestationFacts[]
  /** The instant of evaluation, ISO 8601 UTC. */
  now: string
}

/** Whether `relation` lets transfers go, and attestations be recognised, from `from` to `to`. */
export function trusts(relation: TrustFacts, from: string, to: string): boolean {
  if (relation.from_jurisdiction === from && relation.to_jurisdiction === to) return true
  return relation.mutual && relation.from_jurisdiction === to && relation.to_jurisdiction === from
}

/** The trust relation that carries `from` → `to`, if any. */
export function trustBetween(
  relations: readonly TrustFacts[],
  from: string,
  to: string,
): TrustFacts | undefined {
  return relations.find((r) => trusts(r, from, to))
}

/** ISO 8601 UTC timestamps of the same format compare as strings; parse to be safe with offsets. */
export const before = (a: string, b: string): boolean => Date.parse(a) < Date.parse(b)

/** `trust`: a cross-border transfer needs trust from source to target; within one jurisdiction, none. */
export function trustCheck(relations: readonly TrustFacts[], from: string, to: string): ComplianceCheck {
  if (from === to) {
    return {
      requirement: TRUST,
      jurisdiction: to,
      satisfied: true,
      evidence: null,
      reason: `same-jurisdiction transfer within ${to}: no trust relation needed`,
    }
  }
  const relation = trustBetween(relations, from, to)
  return {
    requirement: TRUST,
    jurisdiction: to,
    satisfied: relation !== undefined,
    evidence: relation?.trust_id ?? null,
    reason: relation
      ? `${to} trusts ${from} (${relation.mutual ? 'mutual' : 'one-way'} relation ${relation.trust_id})`
      : `no trust relation from ${from} to ${to}: transfers between them are not allowed`,
  }
}

/** `credential_valid`: the token's credential is neither revoked nor past its valid_until. */
export function credentialCheck(
  credential: CredentialFacts,
  jurisdiction: string,
  now: string,
): ComplianceCheck {
  const base = { requirement: CREDENTIAL_VALID, jurisdiction, evidence: credential.credential_id }
  if (credential.status === 'revoked') {
    const why = credential.revocation_reason ? ` (${credential.revocation_reason})` : ''
    return {
      ...base,
      satisfied: false,
      reason: `credential ${credential.credential_id} was revoked at ${credential.revoked_at}${why}`,
    }
  }
  if (credential.valid_until !== null && !before(now, credential.valid_until)) {
    return {
      ...base,
      satisfied: false,
      reason: `credential ${credential.credential_id} expired at ${credential.valid_until}`,
    }
  }
  return { ...base, satisfied: true, reason: `credential ${credential.credential_id} is active` }
}

/** The jurisdictions whose attestations `jurisdiction` recognises: itself and those it trusts. */
export function recognisedIssuers(jurisdiction: string, relations: readonly TrustFacts[]): Set<string> {
  const issuers = new Set([jurisdiction])
  for (const r of relations) {
    if (r.to_jurisdiction === jurisdiction) issuers.add(r.from_jurisdiction)
    if (r.mutual && r.from_jurisdiction === jurisdiction) issuers.add(r.to_jurisdiction)
  }
  return issuers
}

/**
 * Requirement `requirement` of `jurisdiction`: met by an unexpired, unrevoked attestation of that type whose subject
 * is the recipient (for `title_verification`: the token's credential), issued by the jurisdiction itself
 * or by one it recognises through trust. The evidence is the newest that qualifies.
 */
export function requirementCheck(
  facts: RequirementFacts,
  jurisdiction: string,
  requirement: string,
  externalOnly = false,
): ComplianceCheck {
  const aboutCredential = requirement === TITLE_VERIFICATION
  const subject = aboutCredential ? `credential ${facts.credential_id}` : `recipient ${facts.recipient_did}`
  const subjects = new Set(facts.recipient_dids ?? [facts.recipient_did])
  subjects.add(facts.recipient_did)
  // Said of an attestation about another DID of the recipient's identity.
  const about = (a: { subject_did: string }) =>
    aboutCredential || a.subject_did === facts.recipient_did
      ? ''
      : ` (about ${a.subject_did}, of the same identity)`
  // `external_only`: the organization's own attestations do not count for it here.
  const candidates = (externalOnly ? [] : facts.attestations)
    .filter((a) => a.type === requirement)
    .filter((a) => (aboutCredential ? a.credential_id === facts.credential_id : subjects.has(a.subject_did)))
    // Newest first, so the evidence cited is the latest attestation that qualifies.
    .sort((a, b) => (a.attestation_id < b.attestation_id ? 1 : -1))
  const recognised = recognisedIssuers(jurisdiction, facts.trust)
  const valid = (a: AttestationFacts) =>
    !a.revoked_at &&
    !before(facts.now, a.issued_at) &&
    (a.valid_until === null || before(facts.now, a.valid_until))

  const met = candidates.find((a) => recognised.has(a.jurisdiction) && valid(a))
  const outside = aboutCredential
    ? []
    : (facts.external ?? [])
        .filter((a) => subjects.has(a.subject_did) && a.requirements.includes(requirement))
        .sort((a, b) => (a.attestation_id < b.attestation_id ? 1 : -1))
  const outsideMet = met
    ? undefined
    : outside.find((a) => a.jurisdictions.includes(jurisdiction) && !a.problem)
  if (outsideMet) {
    return {
      requirement,
      jurisdiction,
      satisfied: true,
      evidence: outsideMet.attestation_id,
      reason: `${requirement} of ${subject} attested by trusted issuer ${outsideMet.issuer_id} (${outsideMet.issuer_did}) in ${outsideMet.attestation_id}${about(outsideMet)}`,
    }
  }
  if (met) {
    const via =
      met.jurisdiction === jurisdiction ? '' : ` (recognised through trust from ${met.jurisdiction})`
    return {
      requirement,
      jurisdiction,
      satisfied: true,
      evidence: met.attestation_id,
      reason: `${requirement} of ${subject} attested by ${met.jurisdiction} in ${met.attestation_id}${about(met)}${via}`,
    }
  }
  const expired = candidates.find(
    (a) => recognised.has(a.jurisdiction) && a.valid_until !== null && !before(facts.now, a.valid_until),
  )
  const revoked = candidates.find((a) => recognised.has(a.jurisdiction) && a.revoked_at)
  const unrecognised = candidates.find((a) => !recognised.has(a.jurisdiction))
  let reason = externalOnly
    ? `no ${requirement} attestation of ${subject} by a trusted issuer of ${jurisdiction} (${jurisdiction} accepts ${requirement} only from trusted issuers)`
    : `no ${requirement} attestation of ${subject} recognised by ${jurisdiction}`
  if (revoked) {
    reason = `${requirement} attestation ${revoked.attestation_id} of ${subject} was revoked at ${revoked.revoked_at}`
  } else if (expired) {
    reason = `${requirement} attestation ${expired.attestation_id} of ${subject} expired at ${expired.valid_until}`
  } else if (unrecognised) {
    reason = `${requirement} attestation ${unrecognised.attestation_id} of ${subject} was issued by ${unrecognised.jurisdiction}, which ${jurisdiction} does not recognise (no trust from ${unrecognised.jurisdiction} to ${jurisdiction})`
  } else {
    const failing = outside.find((a) => a.jurisdictions.includes(jurisdiction) && a.problem)
    const elsewhere = outside.find((a) => !a.jurisdictions.includes(jurisdiction))
    if (failing) {
      reason = `${requirement} attestation ${failing.attestation_id} of ${subject} by trusted issuer ${failing.issuer_id} (${failing.issuer_did}) is not relied on: ${failing.problem}`
    } else if (elsewhere) {
      reason = `${requirement} attestation ${elsewhere.attestation_id} of ${subject} is by trusted issuer ${elsewhere.issuer_id} (${elsewhere.issuer_did}), which ${jurisdiction} does not trust (it is trusted in ${elsewhere.jurisdictions.join(', ') || 'no jurisdiction'})`
    }
  }
  return { requirement, jurisdiction, satisfied: false, evidence: null, reason }
}
