import { isoTimestamp } from '../../platform/clock.js'
import type { AppContext } from '../../pipeline/context.js'
import { ApiError } from '../../platform/errors.js'
import type { IssuerRow } from '../../platform/signing/signing-keys.js'

/*
 * What a jurisdiction issues (property credentials and regulatory attestations) shares its rules and
 * its form: the jurisdiction must accept the type, a validity end lies in the future, and the record
 * carries a Verifiable Credential signed with the jurisdiction's key.
 */

/** The JSON-LD context of every Verifiable Credential the service signs (W3C VC 2.0). */
export const VC_CONTEXT = ['https://www.w3.org/ns/credentials/v2']

/** Refuses (422) issuing `type` in a jurisdiction whose credential_types do not list it. */
export function assertAccepts(
  row: { jurisdiction_id: string; credential_types: string },
  type: string,
): void {
  const accepted = JSON.parse(row.credential_types) as string[]
  if (!accepted.includes(type)) {
    throw new ApiError(
      'credential_type_not_accepted',
      `Jurisdiction ${row.jurisdiction_id} does not accept ${type} credentials (it accepts: ${accepted.join(', ') || 'none'}); add ${type} to its credential_types with PUT /console/rwa/jurisdictions/${row.jurisdiction_id}`,
      { context: { jurisdiction_id: row.jurisdiction_id, credential_type: type, accepted } },
    )
  }
}

/** When something is issued, and until when it is valid (UTC, so stored times compare as text). */
export interface IssuanceTimes {
  nowMs: number
  now: string
  validUntil: string | null
}

/** The times of an issuance now; a `valid_until` that is not in the future is refused (422). */
export function issuanceTimes(ctx: AppContext, validUntil: string | undefined, what: string): IssuanceTimes {
  const nowMs = ctx.clock.now()
  if (validUntil !== undefined && Date.parse(validUntil) <= nowMs) {
    throw new ApiError('valid_until_not_future', `valid_until of the ${what} must be in the future`, {
      context: { valid_until: validUntil },
      errors: [{ path: 'valid_until', message: 'must be in the future' }],
    })
  }
  return {
    nowMs,
    now: isoTimestamp(nowMs),
    validUntil: validUntil === undefined ? null : isoTimestamp(Date.parse(validUntil)),
  }
}

/**
 * Signs what a jurisdiction issues as a W3C VC 2.0 JWT with the jurisdiction's key: `type` after
 * `VerifiableCredential`, valid from the issuance, until `validUntil` when set, with its
 * `credentialStatus` (its entry in the jurisdiction's status list).
 */
export function signIssued(
  ctx: AppContext,
  jurisdiction: IssuerRow,
  vc: {
    id: string
    type: string
    subject: string
    times: IssuanceTimes
    credentialSubject: object
    credentialStatus: object
  },
): Promise<string> {
  const { validUntil } = vc.times
  return ctx.signingKeys.signCredential(jurisdiction, {
    id: vc.id,
    subject: vc.subject,
    issuedAt: vc.times.nowMs,
    '@context': VC_CONTEXT,
    type: ['VerifiableCredential', vc.type],
    issuer: jurisdiction.issuer_did,
    validFrom: vc.times.now,
    ...(validUntil ? { validUntil } : {}),
    credentialSubject: vc.credentialSubject,
    credentialStatus: vc.credentialStatus,
  })
}
