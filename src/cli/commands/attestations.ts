import type { Command } from 'commander'
import type { Attestation, ListAttestationsQuery, SubmitAttestationRequest } from '../../contract/rwa.js'
import type { CliContext } from '../context.js'
import { withContext } from '../context.js'
import { confirmDestructive, requestFrom } from '../input.js'
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
    ['status', a.status === 'active' ? ctx.out.style.green(a.status) : ctx.out.style.red(a.status)],
    ['revoked_at', a.revoked_at],
    ['revocation_reason', a.revocation_reason],
  ])
}

export function list(options: PageOptions, command: Command) {
  return withContext(command, async (ctx) => {
    const rwa = await ctx.rwa()
    const listing = await fetchListing(ctx, 'attestations', options, (query) =>
      rwa.governance.listAttestations({ query: query as ListAttestationsQuery }),
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
        listFooter(ctx, listing)
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

export function submit(options: Record<string, unknown>, command: Command) {
  return withContext(command, async (ctx) => {
    const body = await requestFrom(ctx, options)
    const { data, raw } = await (await ctx.rwa()).governance.submitAttestation({
      body: body as SubmitAttestationRequest,
    })
    ctx.out.result(raw, () => {
      showAttestation(ctx, data)
      ctx.out.success(`submitted attestation ${data.attestation_id}`)
    }, [data.attestation_id])
  })
}

/** `rwa attestations revoke ID [--reason]`: for good; transfers stop relying on it. */
export function revoke(id: string, options: Record<string, unknown>, command: Command) {
  return withContext(command, async (ctx) => {
    const body = await requestFrom(ctx, options)
    await confirmDestructive(
      ctx,
      `revoke attestation ${id}`,
      'No transfer relies on it any more, and its status list says so to every verifier.',
    )
    const { data, raw } = await (await ctx.rwa()).governance.revokeAttestation({ params: { id }, body })
    ctx.out.result(raw, () => {
      showAttestation(ctx, data)
      ctx.out.success(`revoked attestation ${data.attestation_id}`)
    }, [data.attestation_id])
  })
}
