import type { AnyAttestation } from '../../contract/rwa.js'
import type { CliContext } from '../context.js'
import type { Run } from '../invoke.js'
import { listing } from '../paging.js'
import { confirmed, showing } from './shapes.js'

function showAttestation(ctx: CliContext, a: AnyAttestation): void {
  const status = a.status === 'active' ? ctx.out.style.green(a.status) : ctx.out.style.red(a.status)
  if (a.source === 'external') {
    ctx.out.record([
      ['attestation_id', a.attestation_id],
      ['source', 'external'],
      ['type', a.type],
      ['issuer_id', a.issuer_id],
      ['issuer_did', a.issuer_did],
      ['subject_did', a.subject_did],
      ['vc_types', a.vc_types.join(', ')],
      ['valid_from', a.valid_from],
      ['valid_until', a.valid_until],
      ['vc_sha256', a.vc_sha256],
      ['submitted_at', a.submitted_at],
      ['status', status],
    ])
    return
  }
  ctx.out.record([
    ['attestation_id', a.attestation_id],
    ['type', a.type],
    ['jurisdiction', a.jurisdiction],
    ['subject_did', a.subject_did],
    ['attester', a.attester],
    ['credential_id', a.credential_id],
    ['evidence', a.evidence],
    ['issuer_did', a.issuer_did],
    ['issued_at', a.issued_at],
    ['valid_until', a.valid_until],
    ['status', status],
    ['revoked_at', a.revoked_at],
    ['revocation_reason', a.revocation_reason],
  ])
}

export const list = listing('listAttestations', 'attestations', {
  noun: ['attestation', 'attestations'],
  headers: ['attestation_id', 'type', 'jurisdiction', 'subject_did', 'attester', 'valid_until'],
  row: (_, a) => [
    a.attestation_id,
    a.type,
    a.jurisdiction ?? '-',
    a.subject_did,
    a.source === 'external' ? `issuer ${a.issuer_id}` : a.attester,
    a.valid_until,
  ],
  id: (a) => a.attestation_id,
})

export const get = showing('getAttestation', showAttestation, (a) => [a.attestation_id])

export const submit: Run<'submitAttestation'> = async ({ ctx, send }) => {
  const { data, raw } = await send()
  ctx.out.result(raw, () => {
    showAttestation(ctx, data)
    ctx.out.success(`submitted attestation ${data.attestation_id}`)
  }, [data.attestation_id])
}

/** `rwa attestations suspend ID [--reason]`: until reinstated; it meets no requirement meanwhile. */
export const suspend = confirmed(
  'suspendAttestation',
  ({ params }) => ({
    action: `suspend attestation ${params.id}`,
    warning: 'No transfer relies on it until it is reinstated.',
  }),
  (ctx, data) => {
    showAttestation(ctx, data)
    ctx.out.success(`suspended attestation ${data.attestation_id}`)
  },
  (data) => [data.attestation_id],
)

/** `rwa attestations reinstate ID`: a suspended attestation counts again. */
export const reinstate = showing(
  'reinstateAttestation',
  (ctx, data) => {
    showAttestation(ctx, data)
    ctx.out.success(`reinstated attestation ${data.attestation_id}`)
  },
  (a) => [a.attestation_id],
)

/** `rwa attestations revoke ID [--reason]`: for good; transfers stop relying on it. */
export const revoke = confirmed(
  'revokeAttestation',
  ({ params }) => ({
    action: `revoke attestation ${params.id}`,
    warning: 'No transfer relies on it any more, and its status list says so to every verifier.',
  }),
  (ctx, data) => {
    showAttestation(ctx, data)
    ctx.out.success(`revoked attestation ${data.attestation_id}`)
  },
  (data) => [data.attestation_id],
)
