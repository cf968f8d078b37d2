import { type Command, Option } from 'commander'

/*
 * A command's flags. Each gives one field of the operation's request, and everything the CLI does with
 * it follows from that one entry:
 *
 * - the commander option and its `--help` line (`declareFlags`, on the declaration path), with the old
 *   spelling of a renamed flag as a hidden alias;
 * - the request (`requestOf` in ../request.ts: each flag given, parsed by its parser);
 * - the question asked for a missing required field, on a terminal only (`prompt`);
 * - the flag named when the server refuses the field (../failure.ts reads the table of the command
 *   that failed, `flagsOf`), with an example value.
 *
 * The tables are derived from the route table (./derive.ts, from ../spec/operations.ts, generated), so
 * this module imports neither zod nor the contract: `rwa --help` stays cheap (docs/performance.md).
 */

/** A parser of flag values (./parse.ts): the text as typed to the field's value, or an ExitError naming the flag. */
export type Parser = (value: string | string[], flag: string) => unknown

/** One flag of a command: the request field it gives, and what the CLI says about it. */
export interface Flag {
  /** Dotted path of the field in its part of the request, e.g. `property_data.value_usd`. */
  field: string
  /** The part: a path parameter, the query or the body. */
  in: 'path' | 'query' | 'body'
  /**
   * Its key in the request a command builds, and in `--file`: the field's path, or for a path parameter
   * given by a flag, the flag's name (`--token-id` of `rwa transfers check` is `token_id`).
   */
  key: string
  /** Commander's term: `--value-usd <number>`; a flag without a `<value>` is a switch (`--mutual`). */
  flag: string
  /** Its line in `--help`. */
  help: string
  /**
   * Present for a required field: the question asked for it when neither a flag nor `--file` gave it
   * (on a terminal; elsewhere the command fails naming every missing flag).
   */
  prompt?: string
  /** Turns the text given (or an answer to the prompt) into the field's value; without it the text is the value. */
  parse?: Parser
  /** The flag may be repeated, its values collected (`--frameworks a,b --frameworks c`). */
  repeatable?: boolean
  /** A value of the expected form, shown when the server refuses the field (`e.g. --amount 250`). */
  example?: string
  /** It gives the body's other form (../spec/types.ts, FieldSpec.alternative): given, nothing else is required. */
  alternative?: boolean
  /** Earlier spellings, still taken but not shown (docs/cli.md, "Renamed flags"): `--org` of `--org-id`. */
  aliases?: readonly string[]
}

/** The flags of one command. */
export type FlagTable = readonly Flag[]

/** `--value-usd` of `--value-usd <number>`. */
export const longOf = (flag: Pick<Flag, 'flag'>): string => flag.flag.split(' ')[0]!

/** The key commander stores a flag's value under: `valueUsd` for `--value-usd`. */
export const attributeOf = (long: string): string =>
  long.slice(2).replace(/-([a-z])/g, (_, c: string) => c.toUpperCase())

/** Repeatable flag: `--x a,b --x c` collects ["a,b", "c"]; the flag's parser splits the commas. */
export const collect = (value: string, previous: string[] | undefined): string[] => [
  ...(previous ?? []),
  value,
]

const TABLES = new WeakMap<Command, Flag[]>()
/** The earlier spelling a flag was given by, by its name (`--org-id` -> `--org`). */
const SPELLED = new WeakMap<Command, Record<string, string>>()

/**
 * Declares the flags of `table` on `command` (in its order; a required one says so in `--help`), each
 * earlier spelling as a hidden option, and remembers them as the command's table.
 */
export function declareFlags(command: Command, table: FlagTable): Command {
  for (const flag of table) {
    const help = flag.prompt ? `${flag.help} (required)` : flag.help
    const option = new Option(flag.flag, help)
    if (flag.repeatable) option.argParser(collect)
    command.addOption(option)
    const value = flag.flag.slice(longOf(flag).length)
    for (const alias of flag.aliases ?? []) {
      command.addOption(new Option(`${alias}${value}`, help).hideHelp())
      // Given by its earlier spelling, the value is the flag's, in the order the command line gives them.
      command.on(`option:${alias.slice(2)}`, (given: string | null | undefined) => {
        const attribute = attributeOf(longOf(flag))
        SPELLED.set(command, { ...SPELLED.get(command), [longOf(flag)]: alias })
        const typed = given ?? true
        const previous = command.getOptionValue(attribute) as string[] | undefined
        command.setOptionValueWithSource(
          attribute,
          flag.repeatable ? collect(String(typed), previous) : typed,
          'cli',
        )
      })
    }
  }
  TABLES.set(command, [...(TABLES.get(command) ?? []), ...table])
  return command
}

/** The flag table `declareFlags` gave `command` (empty for a command without one). */
export const flagsOf = (command: Command): FlagTable => TABLES.get(command) ?? []

/** The flags of `command` given by an earlier spelling, and that spelling: an error names a flag as typed. */
export const spelledOf = (command: Command): Readonly<Record<string, string>> => SPELLED.get(command) ?? {}
