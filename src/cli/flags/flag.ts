import type { Command } from 'commander'

/*
 * A command's flags, declared once. Each entry of a command's flag table says which request field a
 * flag gives, and everything the CLI does with it follows from that one entry:
 *
 * - the commander option and its `--help` line (`declareFlags`, on the declaration path);
 * - the request body or query (`bodyFrom` in ../input.ts: each flag given, parsed by its parser);
 * - the question asked for a missing required field, on a terminal only (`prompt`);
 * - the flag named when the server refuses the field (../failure.ts reads the table of the command
 *   that failed, `flagsOf`), with an example value.
 *
 * This module and the tables (./billing.ts, ./governance.ts) are loaded to declare the commands, so
 * they import neither zod nor the contract: `rwa --help` stays cheap (docs/performance.md).
 */

/** One flag of a command: the request field it gives, and what the CLI says about it. */
export interface Flag {
  /** Dotted path of the field in the request body, query or path, e.g. `property_data.value_usd`. */
  field: string
  /** Commander's term: `--value-usd <number>`; a flag without a `<value>` is a boolean (`--mutual`). */
  flag: string
  /** Its line in `--help`. */
  help: string
  /**
   * Present for a required field: the question asked for it when neither a flag nor `--file` gave it
   * (on a terminal; elsewhere the command fails naming every missing flag).
   */
  prompt?: string
  /**
   * Turns the text given (the flag's value, or an answer to the prompt) into the field's value, or
   * throws an ExitError naming the flag. Without it the text is the value. A list flag's parser gets
   * every value the repeated flag was given.
   */
  parse?: (value: string | string[], flag: string) => unknown
  /** The flag may be repeated, its values collected (`--frameworks a,b --frameworks c`). */
  repeatable?: boolean
  /** A value of the expected form, shown when the server refuses the field (`e.g. --amount 250`). */
  example?: string
}

/** The flags of one command. */
export type FlagTable = readonly Flag[]

/** `--value-usd` of `--value-usd <number>`. */
export const longOf = (flag: Flag): string => flag.flag.split(' ')[0]!

/** The key commander stores a flag's value under: `valueUsd` for `--value-usd`. */
export const attributeOf = (flag: Flag): string =>
  longOf(flag)
    .slice(2)
    .replace(/-([a-z])/g, (_, c: string) => c.toUpperCase())

/** Repeatable flag: `--x a,b --x c` collects ["a,b", "c"]; the flag's parser splits the commas. */
export const collect = (value: string, previous: string[] | undefined): string[] => [
  ...(previous ?? []),
  value,
]

const TABLES = new WeakMap<Command, Flag[]>()

/**
 * Declares the flags of `table` on `command` (in its order; a required one says so in `--help`) and
 * remembers them as the command's table, which `bodyFrom` and the failure messages read.
 */
export function declareFlags(command: Command, table: FlagTable): Command {
  for (const flag of table) {
    const help = flag.prompt ? `${flag.help} (required)` : flag.help
    if (flag.repeatable) command.option(flag.flag, help, collect)
    else command.option(flag.flag, help)
  }
  TABLES.set(command, [...(TABLES.get(command) ?? []), ...table])
  return command
}

/** The flag table `declareFlags` gave `command` (empty for a command without one). */
export const flagsOf = (command: Command): FlagTable => TABLES.get(command) ?? []
