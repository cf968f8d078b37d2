import type { FlagTable } from './flags/flag.js'

/*
 * What a failed command leaves for the failure layer (./failure.ts, loaded only when something
 * failed): the error, and what the command was, so that the message can name the flag that gave a
 * refused field and the hint can name the command to run next.
 */

/** The request a command built, and which of its fields came from flags (for error messages). */
export interface RequestInput {
  /** The fields its flags and `--file` gave, by key (./flags/flag.ts, `Flag.key`). */
  body: Record<string, unknown>
  /** Dotted keys whose value a flag gave. */
  fromFlags: Set<string>
  /** The `--file` it started from, if any (`-` for stdin). */
  file?: string
}

/** What a failure message may use of the command that failed. */
export interface FailureContext {
  /** The command as typed after `rwa`, e.g. `transfers request`. */
  command: string
  /** Its flag table (flags/flag.ts): which flag gives which request field. */
  fields: FlagTable
  /** Its positional arguments, and their names (`credential_id`). */
  args: string[]
  argumentNames: string[]
  /** The values its flags were given, as typed, by long flag (`--amount` -> `"250"`). */
  flagValues?: Record<string, unknown>
  /** The flags given by an earlier spelling, and that spelling (`--jurisdiction-id` -> `--id`). */
  spelled?: Readonly<Record<string, string>>
  /** The request it sent, and which of its fields came from flags or from `--file`. */
  request?: RequestInput
  /** With `--wait`: how many seconds it was allowed to wait. */
  waitMaxSeconds?: number
}

/** A failure of a command action, with the context to describe it (thrown by `withContext`). */
export class CommandFailure extends Error {
  constructor(
    readonly error: unknown,
    readonly context: FailureContext,
  ) {
    super(error instanceof Error ? error.message : String(error))
    this.name = 'CommandFailure'
  }
}
