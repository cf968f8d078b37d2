import type { ComplianceDetails, Transfer } from '../../contract/rwa.js'
import type { CliContext } from '../context.js'
import { EXIT, ExitError } from '../exit-error.js'
import type { Run } from '../invoke.js'
import { type Styled, yesNo } from '../output.js'
import { listing } from '../paging.js'
import { showing } from './shapes.js'

/** The verdict word, colored. */
export const statusWord = (ctx: CliContext, status: string): Styled =>
  status === 'approved'
    ? ctx.out.style.green(status)
    : status === 'rejected'
      ? ctx.out.style.red(status)
      : ctx.out.style.yellow(status)

/** One row per compliance check: what was required, whether it held, and why. */
export function showChecks(ctx: CliContext, details: ComplianceDetails): void {
  ctx.out.table(
    ['requirement', 'jurisdiction', 'satisfied', 'evidence', 'reason'],
    details.checks.map((c) => [
      c.requirement,
      c.jurisdiction,
      yesNo(ctx.out.style, c.satisfied, 'good'),
      c.evidence,
      c.reason,
    ]),
    { title: 'compliance checks' },
  )
}

/** A transfer as `rwa transfers request|get` print it: its fields, then its compliance checks. */
export function showTransfer(ctx: CliContext, t: Transfer, proof?: { digest: string; kid: string }): void {
  ctx.out.record([
    ['transfer_id', t.transfer_id],
    ['status', statusWord(ctx, t.status)],
    ['token_id', t.token_id],
    ['route', `${t.from_jurisdiction} -> ${t.to_jurisdiction}`],
    ['sender_did', t.sender_did],
    ['recipient_did', t.recipient_did],
    ['amount', t.amount],
    ['proof_id', t.proof_id],
    ...(proof
      ? ([
          ['proof_digest', proof.digest],
          ['proof_kid', proof.kid],
        ] as Array<[string, string]>)
      : []),
    ['all_satisfied', yesNo(ctx.out.style, t.compliance_details.all_satisfied, 'good')],
    ...(t.reason !== null ? ([['reason', t.reason]] as Array<[string, string]>) : []),
    ['created_at', t.created_at],
    ...(t.log_index !== undefined ? ([['log_index', t.log_index]] as Array<[string, number]>) : []),
  ])
  showChecks(ctx, t.compliance_details)
}

export const list = listing('listTransfers', 'transfers', {
  noun: ['transfer', 'transfers'],
  headers: ['transfer_id', 'status', 'token_id', 'route', 'amount', 'recipient_did', 'created_at'],
  row: (ctx, t) => [
    t.transfer_id,
    statusWord(ctx, t.status),
    t.token_id,
    `${t.from_jurisdiction} -> ${t.to_jurisdiction}`,
    t.amount,
    t.recipient_did,
    t.created_at,
  ],
  id: (t) => t.transfer_id,
})

export const get = showing(
  'getTransfer',
  (ctx, t) => showTransfer(ctx, t, t.proof),
  (t) => [t.transfer_id],
)

/** `rwa transfers request`: prints the outcome either way; a rejection exits 6 after printing. */
export const request: Run<'requestTransfer'> = async ({ ctx, send }) => {
  const { data, raw } = await send()
  ctx.out.result(raw, () => showTransfer(ctx, data), [data.transfer_id])
  if (data.status === 'rejected') {
    const failed = data.compliance_details.checks.filter((c) => !c.satisfied)
    throw new ExitError(
      EXIT.rejected,
      `transfer ${data.transfer_id} rejected by compliance: ${failed.map((c) => c.reason).join('; ') || 'requirements not met'}`,
      `nothing moved; proof ${data.proof_id} records the decision, and \`rwa transfers check\` with the same flags tries again without recording`,
    )
  }
  if (!ctx.out.json) ctx.out.success(`transfer ${data.transfer_id} approved; proof ${data.proof_id}`)
}

/**
 * `rwa transfers check`: would this transfer be approved now? Records nothing. Prints every check;
 * exits 6 when it would be refused, like a rejected request.
 */
export const check: Run<'canTransfer'> = async ({ ctx, send }) => {
  const { data, raw } = await send()
  ctx.out.result(raw, () => showChecks(ctx, data.compliance_details))
  if (!data.allowed) {
    const failed = data.compliance_details.checks.filter((c) => !c.satisfied)
    throw new ExitError(
      EXIT.rejected,
      `the transfer would be rejected: ${failed.map((c) => c.reason).join('; ')}`,
      'nothing was recorded',
    )
  }
  if (!ctx.out.json) ctx.out.success('the transfer would be approved now (nothing was recorded)')
}
