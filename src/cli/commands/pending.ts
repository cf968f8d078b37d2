import type { ApiResponse } from '../../client/http.js'
import type { Approval } from '../../contract/approvals.js'
import type { CliContext } from '../context.js'

/*
 * Four eyes (docs/accountability.md, "Four eyes"): what every covered command (forced transfer,
 * recovery, unfreeze, credential revocation) prints when the server answers 202, and an approval as
 * `rwa approvals` shows it.
 */

export const targetOf = (approval: Approval): string => `${approval.target.type} ${approval.target.id}`

export function showApproval(ctx: CliContext, approval: Approval): void {
  ctx.out.record([
    ['approval_id', approval.approval_id],
    ['operation', approval.operation],
    ['target', targetOf(approval)],
    ['status', approval.status],
    ['body', JSON.stringify(approval.body)],
    ['requested_by', approval.requested_by],
    ['requested_at', approval.requested_at],
    ['expires_at', approval.expires_at],
    ['decided_by', approval.decided_by],
    ['decided_at', approval.decided_at],
    ['reason', approval.reason],
    ...(approval.outcome === null
      ? []
      : ([['outcome', `${approval.outcome.status} ${JSON.stringify(approval.outcome.body)}`]] as Array<
          [string, string]
        >)),
  ])
}

/**
 * A covered command's answer: when the organization's policy made it wait for a second key (202), the
 * approval is printed with how to approve it (exit 0: the request was recorded) and `undefined` is
 * answered; otherwise the answer itself, for the command to print as usual.
 */
export function unlessPending<T>(
  ctx: CliContext,
  response: ApiResponse<T>,
): ApiResponse<Exclude<T, Approval>> | undefined {
  if (response.status !== 202) return response as ApiResponse<Exclude<T, Approval>>
  const approval = response.data as Approval
  ctx.out.result(response.raw, () => {
    showApproval(ctx, approval)
    ctx.out.success(
      `approval ${approval.approval_id} requested: the policy needs a second key for ${approval.operation}; nothing was done yet`,
    )
    ctx.out.info(
      `another key with the agent role approves it (until ${approval.expires_at}):\n  rwa approvals approve ${approval.approval_id}\nor rejects it:\n  rwa approvals reject ${approval.approval_id}`,
    )
  }, [approval.approval_id])
  return undefined
}
