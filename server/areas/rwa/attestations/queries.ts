import type { Insertable } from 'kysely'
import { compiledOnce } from '../../../platform/db/compiled-query.js'
import type { ListAttestationsQuery } from '../../../../src/contract/rwa.js'
import { type Executor, ownedRecord, pageOf, whereEqual } from '../../../platform/db/queries.js'
import type { AttestationsTable } from '../../../platform/db/schema.js'
import type { ExternalAttestationsTable } from '../../../platform/db/issuers-schema.js'

/** Every query of attestations; each filters by org_id first. */

export const findAttestation = ownedRecord('attestations', 'attestation_id')

export function listAttestations(db: Executor, orgId: string, query: ListAttestationsQuery) {
  const base = whereEqual(db.selectFrom('attestations').where('org_id', '=', orgId), {
    jurisdiction: query.jurisdiction,
    credential_id: query.credential_id,
    subject_did: query.subject_did,
    type: query.type,
  })
  return pageOf(base, 'attestation_id', query)
}

export async function insertAttestation(db: Executor, row: Insertable<AttestationsTable>): Promise<void> {
  await db.insertInto('attestations').values(row).execute()
}

/** Revokes an active attestation; false when it was not active (another request revoked it first). */
export async function markAttestationRevoked(
  db: Executor,
  attestationId: string,
  revokedAt: string,
  reason: string | null,
): Promise<boolean> {
  const result = await db
    .updateTable('attestations')
    .set({ status: 'revoked', revoked_at: revokedAt, revocation_reason: reason })
    .where('attestation_id', '=', attestationId)
    .where('status', '=', 'active')
    .executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}

/**
 * The attestations a transfer evaluation may rely on: those of the recipient for `personal`
 * requirements and the title verifications of the token's credential.
 */
export function attestationsForTransfer(
  db: Executor,
  orgId: string,
  /** The recipient's DIDs: itself and those of its identity (docs/identities.md). */
  recipientDids: readonly string[],
  personal: string[],
  credentialId: string,
  titleType: string,
) {
  return personal.length === 0
    ? titleVerificationsQuery(db, orgId, credentialId, titleType)
    : attestationsForTransferQuery(db, orgId, [...recipientDids], personal, credentialId, titleType)
}

const candidateAttestations = (db: Executor) =>
  db
    .selectFrom('attestations')
    .select([
      'attestation_id',
      'jurisdiction',
      'subject_did',
      'type',
      'credential_id',
      'issued_at',
      'valid_until',
      'revoked_at',
      'suspended_at',
    ])

/** Compiled once per number of personal requirements and of the recipient's DIDs. */
const attestationsForTransferQuery = compiledOnce(
  (
    db: Executor,
    orgId: string,
    recipientDids: string[],
    personal: string[],
    credentialId: string,
    titleType: string,
  ) =>
    candidateAttestations(db).where((eb) => {
      // org_id inside each branch, so that each is an index seek of its own (attestations_credential_idx,
      // attestations_subject_idx) rather than a walk over every attestation of the organization.
      const title = eb.and([
        eb('org_id', '=', orgId),
        eb('credential_id', '=', credentialId),
        eb('type', '=', titleType),
      ])
      return eb.or([
        eb.and([
          eb('org_id', '=', orgId),
          eb('subject_did', 'in', recipientDids),
          eb('type', 'in', personal),
        ]),
        title,
      ])
    }),
)

/** The title verifications alone, when neither jurisdiction requires anything of the recipient. */
const titleVerificationsQuery = compiledOnce(
  (db: Executor, orgId: string, credentialId: string, titleType: string) =>
    candidateAttestations(db)
      .where('org_id', '=', orgId)
      .where('credential_id', '=', credentialId)
      .where('type', '=', titleType),
)

// ── Attestations of trusted issuers (docs/issuers.md) ──────────────────────

export const findExternalAttestation = ownedRecord('external_attestations', 'attestation_id')

export async function findExternalByDigest(db: Executor, orgId: string, sha256: string) {
  return db
    .selectFrom('external_attestations')
    .select('attestation_id')
    .where('org_id', '=', orgId)
    .where('vc_sha256', '=', sha256)
    .executeTakeFirst()
}

export async function insertExternalAttestation(
  db: Executor,
  row: Insertable<ExternalAttestationsTable>,
): Promise<void> {
  await db.insertInto('external_attestations').values(row).execute()
}

/** A page of an organization's trusted issuers' attestations, filtered as the list is (no jurisdiction, no credential). */
export function listExternalAttestations(db: Executor, orgId: string, query: ListAttestationsQuery) {
  const base = whereEqual(db.selectFrom('external_attestations').where('org_id', '=', orgId), {
    subject_did: query.subject_did,
    type: query.type,
  })
  return pageOf(base, 'attestation_id', query)
}

/**
 * Trusted issuers' attestations about any of `subjectDids` (a subject and the DIDs of its identity): a
 * transfer evaluation's candidates, compiled once per number of DIDs.
 */
export function externalAttestationsOf(db: Executor, orgId: string, subjectDids: readonly string[]) {
  return externalAttestationsQuery(db, orgId, [...subjectDids])
}

const externalAttestationsQuery = compiledOnce((db: Executor, orgId: string, subjectDids: string[]) =>
  db
    .selectFrom('external_attestations')
    .selectAll()
    .where('org_id', '=', orgId)
    .where('subject_did', 'in', subjectDids),
)

/**
 * Suspends (`suspension` given) or reinstates (null) an unrevoked attestation; false when another
 * request changed it first (revoked it, or suspended or reinstated it).
 */
export async function markAttestationSuspension(
  db: Executor,
  attestationId: string,
  suspension: { at: string; reason: string | null } | null,
): Promise<boolean> {
  const result = await db
    .updateTable('attestations')
    .set({ suspended_at: suspension?.at ?? null, suspension_reason: suspension?.reason ?? null })
    .where('attestation_id', '=', attestationId)
    .where('status', '=', 'active')
    .where('suspended_at', suspension ? 'is' : 'is not', null)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}
