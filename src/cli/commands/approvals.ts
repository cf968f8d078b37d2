import type { ApprovableOperation, ApprovalPolicy } from '../../contract/approvals.js'
import type { Credential, FreezeState, RecoveryResult, TokenDetail, Transfer } from '../../contract/rwa.js'
import type { CliContext } from '../context.js'
import { confirmDestructive } from '../input.js'
import type { Run } from '../invoke.js'
import { listing } from '../paging.js'
import { showApproval, targetOf } from './pending.js'
import { showing } from './shapes.js'

/*
 * Four eyes (docs/accountability.md, "Four eyes"): `rwa policy show|set` and `rwa approvals
 * list|get|approve|reject`.
 */

function showPolicyRecord(ctx: CliContext, policy: ApprovalPolicy): void {
  ctx.out.record([
    ['require_approval', policy.require_approval.join(',') || '(none)'],
    ['updated_at', policy.updated_at],
    ['updated_by', policy.updated_by],
  ])
}

export const showPolicy = showing('getApprovalPolicy', showPolicyRecord)

export const setPolicy: Run<'setApprovalPolicy'> = async ({ ctx, send }) => {
  const { data, raw } = await send()
  ctx.out.result(raw, () => {
    showPolicyRecord(ctx, data)
    ctx.out.success(
      data.require_approval.length === 0
        ? 'four eyes off: no operation needs a second key'
        : `four eyes on for ${data.require_approval.join(', ')}: each call waits for another key's approval`,
    )
  })
}

export const list = listing('listApprovals', 'approvals', {
  noun: ['approval', 'approvals'],
  headers: ['approval_id', 'operation', 'target', 'status', 'requested_by', 'requested_at', 'expires_at'],
  row: (_, a) => [
    a.approval_id,
    a.operation,
    targetOf(a),
    a.status,
    a.requested_by,
    a.requested_at,
    a.expires_at,
  ],
  id: (a) => a.approval_id,
})

export const get = showing('getApproval', showApproval, (a) => [a.approval_id])

/**
 * Approves: shows what will run, asks (or takes --yes), then runs it. The answer is the operation's own,
 * printed as JSON with --json, else as the operation's own command prints it (`printerOf`); a refusal
 * fails the command like the operation would.
 */
export const approve: Run<'approveApproval'> = async ({ ctx, input, send }) => {
  const approval = (await ctx.call('getApproval', { params: input.params, query: {}, body: {} })).data
  await confirmDestructive(
    ctx,
    `approve ${approval.approval_id}: run ${approval.operation} on ${targetOf(approval)} with ${JSON.stringify(approval.body)} now`,
  )
  const { data, raw } = await send()
  const ids = Object.entries(data as Record<string, unknown>)
    .filter(([name, value]) => /^(transfer|proof|credential)_id$/.test(name) && typeof value === 'string')
    .map(([, value]) => value as string)
  const print = await printerOf(approval.operation)
  ctx.out.result(raw, () => ctx.out.success(`approved ${approval.approval_id}: ${print(ctx, data)}`), ids)
}

/**
 * How an approved operation's answer prints: as its own command prints it (a forced transfer as
 * `rwa transfers request` prints a transfer), answering what was done, in words. Loaded when needed.
 */
async function printerOf(
  operation: ApprovableOperation,
): Promise<(ctx: CliContext, answer: unknown) => string> {
  switch (operation) {
    case 'forced_transfer': {
      const { showTransfer } = await import('./transfers.js')
      return (ctx, answer) => {
        const transfer = answer as Transfer
        showTransfer(ctx, transfer)
        return `forced transfer ${transfer.transfer_id}; proof ${transfer.proof_id}`
      }
    }
    case 'recover': {
      const { showRecovery } = await import('./token-governance.js')
      return (ctx, answer) => showRecovery(ctx, answer as RecoveryResult)
    }
    case 'unfreeze': {
      const { showFreezeState } = await import('./token-governance.js')
      return (ctx, answer) => {
        const state = answer as FreezeState
        showFreezeState(ctx, state)
        return `unfroze ${state.holder_did} for ${state.token_id}`
      }
    }
    case 'mint':
    case 'burn': {
      const { showSupply } = await import('./supply.js')
      return (ctx, answer) => showSupply(ctx, answer as TokenDetail, operation === 'mint' ? 'minted' : 'burned')
    }
    case 'credential_revoke': {
      const { showCredential } = await import('./credentials.js')
      return (ctx, answer) => {
        const credential = answer as Credential
        showCredential(ctx, credential)
        return `revoked credential ${credential.credential_id}`
      }
    }
  }
}

export const reject: Run<'rejectApproval'> = async ({ ctx, send }) => {
  const { data, raw } = await send()
  ctx.out.result(raw, () => {
    showApproval(ctx, data)
    ctx.out.success(`rejected ${data.approval_id}: ${data.operation} will not run`)
  }, [data.approval_id])
}
