import type { Command } from 'commander'
import { type CliContext, withContext } from './context.js'
import type { Answer, OperationId, OperationRequest } from './operation.js'
import { requestOf } from './request.js'
import { OPERATIONS } from './spec/operations.js'

/*
 * How a command of an operation runs (./program/operation-command.ts declares it): the request is
 * built from its arguments, flags and `--file` (./request.ts), then its `run` sends it and prints the
 * answer. The request is not typed as the operation's input (the server validates it, and a refusal
 * names the flag that gave the field); the answer is typed as the operation's output (./operation.ts).
 */

export type { Answer, OperationId, OperationRequest, Output } from './operation.js'

/** A command at the moment it runs: its context, its request, and the call of its operation. */
export interface Invocation<K extends OperationId> {
  ctx: CliContext
  /** The request its arguments, flags and `--file` built; `send` sends it unless given another. */
  input: OperationRequest
  send(input?: OperationRequest): Promise<Answer<K>>
}

/** What a command of operation `K` does once its request is built. */
export type Run<K extends OperationId> = (call: Invocation<K>) => Promise<void>

/** Runs a command of an operation: builds its request, then hands it to its `run`. */
export function invoke<K extends OperationId>(command: {
  operation: K
  run: Run<K>
  command: Command
  options: Record<string, unknown>
  /** Its arguments: the path parameter each gives, and its value. */
  args: ReadonlyArray<readonly [field: string, value: string | undefined]>
}): Promise<void> {
  return withContext(command.command, async (ctx) => {
    const input = await requestOf(ctx, OPERATIONS[command.operation]!, command.options, command.args)
    await command.run({ ctx, input, send: (request = input) => ctx.call(command.operation, request) })
  })
}
