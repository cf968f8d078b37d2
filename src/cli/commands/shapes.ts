import type { Approval } from '../../contract/approvals.js'
import type { CliContext } from '../context.js'
import { confirmDestructive } from '../input.js'
import type { Invocation, Run } from '../invoke.js'
import type { OperationId, OperationRequest, Output } from '../operation.js'
import { unlessPending } from './pending.js'

/*
 * The shapes most commands of one operation share, besides the list (../paging.ts): printing the record
 * the operation answers, and changing something for good after a confirmation.
 */

/** The run of a command that prints the record its operation answers (`-q`: its ids). */
export function showing<K extends OperationId>(
  _operation: K,
  show: (ctx: CliContext, data: Output<K>) => void,
  ids: (data: Output<K>) => string[] = () => [],
): Run<K> {
  return async ({ ctx, send }: Invocation<K>) => {
    const { data, raw } = await send()
    ctx.out.result(raw, () => show(ctx, data), ids(data))
  }
}

/**
 * The run of a command that revokes or removes for good: it asks first (`--yes` answers; without a
 * terminal it refuses), then sends; when the organization's policy makes the operation wait for a
 * second key, the pending approval is printed instead (./approvals.ts, `unlessPending`).
 */
export function confirmed<K extends OperationId>(
  _operation: K,
  question: (input: OperationRequest) => { action: string; warning?: string },
  done: (ctx: CliContext, data: Exclude<Output<K>, Approval>) => void,
  ids: (data: Exclude<Output<K>, Approval>) => string[],
): Run<K> {
  return async ({ ctx, input, send }: Invocation<K>) => {
    const { action, warning } = question(input)
    await confirmDestructive(ctx, action, warning)
    const answer = unlessPending(ctx, await send())
    if (!answer) return
    ctx.out.result(answer.raw, () => done(ctx, answer.data), ids(answer.data))
  }
}
