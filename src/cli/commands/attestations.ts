import type { Command } from 'commander'
import type { Attestation, SubmitAttestationRequest } from '../../contract/rwa.js'
import type { CliContext } from '../context.js'
import { withContext } from '../context.js'
import { bodyFrom, fillRequired } from '../input.js'
import { fetchListing, listFooter, type PageOptions } from '../paging.js'

function showAttestation(ctx: CliContext, a: Attestation): void {
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
  ])
}

interface ListOptions extends PageOptions {
  jurisdiction?: string
  credentialId?: string
  subjectDid?: string
  type?: string
}

export function list(options: ListOptions, command: Command) {
  return withContext(command, async (ctx) => {
    const rwa = await ctx.rwa()
    const filters = {
      jurisdiction: options.jurisdiction,
      credential_id: options.credentialId,
      subject_did: options.subjectDid,
      type: options.type,
    }
    const listing = await fetchListing(ctx, 'attestations', options, (page) =>
      rwa.governance.listAttestations({ query: { ...filters, ...page } }),
    )
    ctx.out.result(
      listing.raw,
      () => {
        ctx.out.table(
          ['attestation_id', 'type', 'jurisdiction', 'subject_did', 'attester', 'valid_until'],
          listing.items.map((a) => [
            a.attestation_id,
            a.type,
            a.jurisdiction,
            a.subject_did,
            a.attester,
            a.valid_until,
          ]),
        )
        listFooter(ctx, listing, 'attestations')
      },
      listing.items.map((a) => a.attestation_id),
    )
  })
}

export function get(id: string, _options: unknown, command: Command) {
  return withContext(command, async (ctx) => {
    const { data, raw } = await (await ctx.rwa()).governance.getAttestation({ params: { id: id } })
    ctx.out.result(raw, () => showAttestation(ctx, data), [data.attestation_id])
  })
}

interface SubmitOptions {
  jurisdiction?: string
  subjectDid?: string
  type?: string
  attester?: string
  credentialId?: string
  evidence?: string
  validUntil?: string
  file?: string
}

export function submit(options: SubmitOptions, command: Command) {
  return withContext(command, async (ctx) => {
    const body = await bodyFrom(ctx, options.file, {
      jurisdiction: options.jurisdiction,
      subject_did: options.subjectDid,
      type: options.type,
      attester: options.attester,
      credential_id: options.credentialId,
      evidence: options.evidence,
      valid_until: options.validUntil,
    })
    await fillRequired(ctx, body, [
      { path: 'jurisdiction', flag: '--jurisdiction', question: 'Issuing jurisdiction' },
      { path: 'subject_did', flag: '--subject-did', question: 'Subject DID' },
      { path: 'type', flag: '--type', question: 'Requirement it satisfies (e.g. kyc)' },
      { path: 'attester', flag: '--attester', question: 'Attester (who performed the check)' },
    ])
    const { data, raw } = await (await ctx.rwa()).governance.submitAttestation({
      body: body as SubmitAttestationRequest,
    })
    ctx.out.result(raw, () => {
      showAttestation(ctx, data)
      ctx.out.success(`submitted attestation ${data.attestation_id}`)
    }, [data.attestation_id])
  })
}
