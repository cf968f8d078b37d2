import type { Command } from 'commander'
import { type FieldOverrides, flagsOfOperation } from '../flags/derive.js'
import { declareFlags, type Flag, longOf } from '../flags/flag.js'
import type { OperationId, Run } from '../invoke.js'
import { OPERATIONS } from '../spec/operations.js'
import type { CliOperation } from '../spec/types.js'
import { examples, fileOption } from './help.js'

/*
 * A command of one operation of the route table, declared from the operation's request
 * (../spec/operations.ts, generated): its path parameters are its arguments, each other field a flag
 * (../flags/derive.ts), `--file` when it takes a body, `--all` when it lists pages. The command says
 * only what it says differently (its words, a flag's name, arguments' names) and what it does with the
 * answer (`run`, in its module under ../commands/, loaded only when it runs).
 */

/** A command of operation `K`. */
export interface CommandSpec<K extends OperationId = OperationId> {
  operation: K
  /** Its line in `--help`; the operation's summary when absent. */
  description?: string
  /**
   * How path parameters are written as arguments: `{ id: '<jurisdiction_id>' }`, or with their help
   * `{ key_id: ['<key_id>', 'key to revoke (key_...)'] }`. Absent: `<name>`. A path parameter with a
   * flag override is a flag instead, and an argument too when named here (`rwa subscription get [org_id]`).
   */
  args?: Readonly<Record<string, string | readonly [term: string, help: string]>>
  /** Where a flag differs from its field (../flags/derive.ts). */
  flags?: FieldOverrides
  /** No field is required on the command line: the command fills what is not given (a PUT from the record). */
  partial?: boolean
  /** `--file` although the operation takes no body, or none although it does. */
  file?: boolean
  /** Options that give no field of the request (`--clear`, `--interval`). */
  options?: (command: Command) => Command
  /** Its examples; absent, one is made of its arguments and the examples of its required fields. */
  examples?: readonly string[]
  /** More help, after the examples. */
  helpAfter?: string
  /**
   * What it does, from its module (lazy: `rwa --help` loads none); absent, it sends the request and prints
   * the answer as it comes (../commands/generic.ts).
   */
  run?: () => Promise<Run<K>>
}

/** A spec of any operation (a table holds specs of several). */
export type AnyCommandSpec = { [K in OperationId]: CommandSpec<K> }[OperationId]

/** Which operation each declared command runs (for the coverage test and the failure messages). */
const OPERATION_OF = new WeakMap<Command, OperationId>()

/** The operation `command` was declared for, if any. */
export const operationOf = (command: Command): OperationId | undefined => OPERATION_OF.get(command)

/** The path parameter each argument of a command of an operation gives, in order. */
const ARGUMENT_FIELDS = new WeakMap<Command, readonly string[]>()

/** The path parameters `command` takes as arguments (`['id']` for `rwa tokens get <token_id>`). */
export const argumentFieldsOf = (command: Command): readonly string[] => ARGUMENT_FIELDS.get(command) ?? []

/** The path parameters `command` takes as arguments, in order, and how each is written. */
function argumentsOf(
  operation: CliOperation,
  spec: Pick<CommandSpec, 'args' | 'flags'>,
): Array<{ field: string; term: string; help?: string }> {
  return operation.fields
    .filter(
      (f) => f.in === 'path' && (spec.flags?.[f.name] === undefined || spec.args?.[f.name] !== undefined),
    )
    .map((f) => {
      const given = spec.args?.[f.name]
      if (given === undefined) return { field: f.name, term: `<${f.name}>` }
      return typeof given === 'string'
        ? { field: f.name, term: given }
        : { field: f.name, term: given[0], help: given[1] }
    })
}

/** `rwa tokens get <token_id>`, `rwa transfers request --token-id tok_... --amount 250`: the command, its arguments, its required flags. */
function exampleOf(command: Command, args: ReadonlyArray<{ term: string }>, flags: readonly Flag[]): string {
  const path: string[] = []
  for (let c: Command | null = command; c?.parent; c = c.parent) path.unshift(c.name())
  const required = flags.filter((f) => f.prompt !== undefined)
  return [
    'rwa',
    ...path,
    ...args.map((a) => a.term),
    ...required.map((f) => `${longOf(f)} ${f.example ?? f.flag.split(' ')[1] ?? ''}`.trim()),
  ].join(' ')
}

/** Declares `name` under `parent` for `spec.operation`; its action runs `spec.run` with the request built. */
export function declareOperation<K extends OperationId>(
  parent: Command,
  name: string,
  spec: CommandSpec<K>,
): Command {
  const operation = OPERATIONS[spec.operation]
  if (!operation) throw new Error(`rwa ${name}: no operation ${spec.operation} in the route table`)
  const command = parent.command(name).description(spec.description ?? operation.summary)
  const args = argumentsOf(operation, spec)
  for (const arg of args) command.argument(arg.term, arg.help)
  const flags = flagsOfOperation(operation, spec.flags, { partial: spec.partial })
  declareFlags(command, flags)
  if (flags.some((f) => f.in === 'query' && f.field === 'cursor'))
    command.option('--all', 'follow next_cursor and print every page')
  if (spec.file ?? operation.body === 'required') fileOption(command)
  spec.options?.(command)
  examples(command, [...(spec.examples ?? [exampleOf(command, args, flags)])])
  if (spec.helpAfter) command.addHelpText('after', spec.helpAfter)
  OPERATION_OF.set(command, spec.operation)
  ARGUMENT_FIELDS.set(
    command,
    args.map((arg) => arg.field),
  )
  command.action(async (...all: unknown[]) => {
    const [{ invoke }, run] = await Promise.all([
      import('../invoke.js'),
      spec.run?.() ?? import('../commands/generic.js').then((m) => m.generic<K>),
    ])
    const values = all.slice(0, args.length) as Array<string | undefined>
    await invoke({
      operation: spec.operation,
      run,
      command: all.at(-1) as Command,
      options: all.at(-2) as Record<string, unknown>,
      args: args.map((arg, i) => [arg.field, values[i]] as const),
    })
  })
  return command
}

/** Declares each command of a group: `{ list: {...}, get: {...} }` under `rwa <group>`. */
export function declareGroup(group: Command, commands: Readonly<Record<string, AnyCommandSpec>>): Command {
  for (const [name, spec] of Object.entries(commands)) declareOperation(group, name, spec as CommandSpec)
  return group
}

/** Keeps the operation's type of a spec written in a table. */
export const command = <K extends OperationId>(spec: CommandSpec<K>): CommandSpec<K> => spec

/**
 * How a workflow command (more than one call: `rwa apply`, `rwa audit export`) gives the request of each
 * operation it calls, field by field: the flag, or in words where the command fills it itself.
 */
export type Coverage = Partial<Record<OperationId, Readonly<Record<string, string>>>>

const COVERAGE = new WeakMap<Command, Coverage>()

/** Says which operations a workflow command calls and how it gives each of their fields. */
export function covers(command: Command, coverage: Coverage): Command {
  COVERAGE.set(command, coverage)
  return command
}

/** What `covers` said of `command`. */
export const coverageOf = (command: Command): Coverage => COVERAGE.get(command) ?? {}
