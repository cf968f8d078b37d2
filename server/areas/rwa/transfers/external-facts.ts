import { checkExternalStatus, verifyExternalCredential } from '../../../../src/proof/external-credential.js'
import type { AppContext } from '../../../pipeline/context.js'
import type { Executor } from '../../../platform/db/queries.js'
import { externalAttestationsOf } from '../attestations/queries.js'
import { cachedStatusList } from '../issuer-documents/status.js'
import { trustedIssuersOf } from '../issuers/queries.js'
import type { ExternalAttestationFacts } from './requirement-checks.js'

/*
 * The trusted issuers' attestations of a subject (any DID of its identity) as an evaluation relies on them (docs/issuers.md,
 * "Evaluation"): each VC-JWT verified again against the issuers as they are now (suspended or removed,
 * trusted for other types, keys, validity), and, for one that meets a requirement asked for, its status
 * in the issuer's lists as last fetched, at most --issuer-status-max-age old (fetched again when older;
 * unknown, and so not relied on, when that fails).
 */
export async function externalFacts(
  ctx: AppContext,
  trx: Executor,
  orgId: string,
  subjectDids: readonly string[],
  requirements: readonly string[],
  now: string,
): Promise<ExternalAttestationFacts[]> {
  if (requirements.length === 0) return []
  const rows = (await externalAttestationsOf(trx, orgId, subjectDids)).filter((r) =>
    requirements.includes(r.type),
  )
  if (rows.length === 0) return []
  const issuers = await trustedIssuersOf(trx, orgId)
  const at = new Date(now)
  const facts: ExternalAttestationFacts[] = []
  for (const row of rows) {
    const issuer = issuers.find((i) => i.issuer_id === row.issuer_id)
    const base = {
      attestation_id: row.attestation_id,
      issuer_id: row.issuer_id,
      issuer_did: row.issuer_did,
      subject_did: row.subject_did,
      jurisdictions: issuer?.jurisdictions ?? [],
    }
    const verified = await verifyExternalCredential(row.vc_jwt, issuers, at)
    if (!verified.ok) {
      facts.push({ ...base, requirements: [row.type], problem: `${verified.detail} (${verified.reason})` })
      continue
    }
    if (!verified.requirements.some((r) => requirements.includes(r))) {
      facts.push({ ...base, requirements: verified.requirements, problem: null })
      continue
    }
    const status = await checkExternalStatus(verified, cachedStatusList(ctx, trx, orgId), {
      now: at,
      maxAgeMs: ctx.issuerStatusMaxAgeMs,
      label: row.attestation_id,
    })
    facts.push({ ...base, requirements: verified.requirements, problem: status.ok ? null : status.detail })
  }
  return facts
}
