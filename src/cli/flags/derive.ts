import type { CliOperation, FieldSpec } from '../spec/types.js'
import type { Flag, Parser } from './flag.js'
import { decimal, jsonValue, list, oneOf, wholeNumber } from './parse.js'

/*
 * A command's flags derived from its operation's request (../spec/operations.ts, generated from the
 * route table): one flag a field, named as the field (`owner_did` is `--owner-did`, `property_data.
 * value_usd` is `--value-usd`), required when the field is, parsed by its type (a whole number, a number,
 * a list, one of an enum), with the schema's description as its help and the declaration's example.
 * A command says only where it deliberately differs (`FlagOverride`): a shorter name (`--from`), better
 * words for its context, a parser of its own (`--expires-in 24h`).
 */

/** What a command changes of a field's flag. */
export interface FlagOverride {
  /** Another name (`--from`), with its value's placeholder if not the usual one (`--expires-in <duration>`). */
  flag?: string
  /** Its `--help` line, where the schema's description does not say it for this command. */
  help?: string
  /** The question asked for it on a terminal when it is missing. */
  prompt?: string
  /** Required on the command line, or not (the command fills it), whatever the schema says. */
  required?: boolean
  parse?: Parser
  example?: string
  /** The flag may be repeated (a list's flag always may), its values handed to `parse` together. */
  repeatable?: boolean
}

/** By field name: what differs, or `false` for a field the command gives no flag (it fills it itself). */
export type FieldOverrides = Readonly<Record<string, FlagOverride | false>>

/** Earlier spellings of flags renamed to their field's name, still taken (docs/cli.md, "Renamed flags"). */
export const RENAMED: Readonly<Record<string, readonly string[]>> = {
  org_id: ['--org'],
  jurisdiction_id: ['--id'],
  start_trial: ['--trial'],
  roles: ['--role'],
}

/** The help of the fields every list has. */
const PAGE_HELP: Readonly<Record<string, (field: FieldSpec) => string>> = {
  limit: (f) => `items per page${f.min !== undefined && f.max !== undefined ? `, ${f.min}–${f.max}` : ''}`,
  cursor: () => "start after this cursor (the previous page's next_cursor)",
}

/** The help of a field's flag from the schema: its description, or its values; its default, a list's form. */
function helpOfField(field: FieldSpec, paged: boolean): string {
  const page = paged && field.in === 'query' ? PAGE_HELP[field.name] : undefined
  let help = page
    ? page(field)
    : field.description
      ? helpOfDescription(field.description)
      : field.enum
        ? orList(field.enum)
        : ''
  if (field.default !== undefined && !/default/.test(help))
    help += ` (${page ? 'server ' : ''}default ${field.default})`
  if (field.type === 'list' && !/comma|repeat/.test(help)) help += ', comma-separated or repeated'
  return help
}

const kebab = (name: string): string => name.split('.').at(-1)!.replaceAll('_', '-')

/** `a, b or c`. */
const orList = (values: readonly string[]): string =>
  values.length === 1 ? values[0]! : `${values.slice(0, -1).join(', ')} or ${values.at(-1)}`

/** A description as a help line: lower case first (but for a code like `US`), no backticks, no final period. */
function helpOfDescription(description: string): string {
  const text = description.replaceAll('`', '').replace(/\.$/, '')
  return /^[A-Z][a-z]/.test(text) ? `${text[0]!.toLowerCase()}${text.slice(1)}` : text
}

/** What the value of a field's flag is called in `--help`. */
function placeholderOf(field: FieldSpec): string {
  const name = field.name.split('.').at(-1)!
  if (field.type === 'list') return '<list>'
  if (field.type === 'integer') return '<n>'
  if (field.type === 'number') return '<number>'
  if (field.type === 'json') return '<json>'
  if (field.time) return '<timestamp>'
  if (name.endsWith('_did')) return '<did>'
  if (field.enum) return `<${name}>`
  if (name === 'cursor') return '<cursor>'
  if (name === 'id' || name.endsWith('_id') || name === 'jurisdiction' || name.endsWith('_jurisdiction'))
    return '<id>'
  return '<text>'
}

function parserOf(field: FieldSpec): Parser | undefined {
  if (field.type === 'integer') return wholeNumber
  if (field.type === 'number') return decimal
  if (field.type === 'list') return list
  if (field.type === 'json') return jsonValue
  if (field.type === 'string' && field.enum) return oneOf(field.enum)
  return undefined
}

/** An example as one shell word: quoted when it holds a space or a character the shell reads. */
const shellWord = (value: string): string =>
  /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`

/** The flag of one field. */
function flagOf(field: FieldSpec, override: FlagOverride, paged: boolean): Flag {
  const own = `--${kebab(field.name)}`
  const term = override.flag ?? own
  const long = term.split(' ')[0]!
  const flag = field.type === 'boolean' || term.includes(' ') ? term : `${term} ${placeholderOf(field)}`
  const help = override.help ?? helpOfField(field, paged)
  const required = override.required ?? field.required
  const parse = override.parse ?? parserOf(field)
  const example = override.example ?? field.example
  const aliases = long === own ? (RENAMED[field.name] ?? []) : []
  return {
    field: field.name,
    in: field.in,
    // A path parameter given by a flag goes by the flag's name in the request and in --file.
    key: field.in === 'path' ? long.slice(2).replaceAll('-', '_') : field.name,
    flag,
    help,
    ...(required ? { prompt: override.prompt ?? `${help[0]?.toUpperCase() ?? ''}${help.slice(1)}` } : {}),
    ...(parse ? { parse } : {}),
    ...(field.type === 'list' || override.repeatable ? { repeatable: true } : {}),
    ...(example !== undefined && field.type !== 'boolean' ? { example: shellWord(example) } : {}),
    ...(aliases.length > 0 ? { aliases } : {}),
    ...(field.alternative ? { alternative: true } : {}),
  }
}

/**
 * The flags of a command of `operation`: a flag for each field but the path parameters it takes as
 * arguments (those without an override) and the fields it says `false` of; a field in two parts (the
 * query and the body of `revokeTrust`) once, in the first; a list's `--limit` and `--cursor` last.
 */
export function flagsOfOperation(
  operation: CliOperation,
  overrides: FieldOverrides = {},
  options: { partial?: boolean } = {},
): Flag[] {
  const seen = new Set<string>()
  const flags: Flag[] = []
  for (const field of operation.fields) {
    const override = overrides[field.name]
    if (override === false || seen.has(field.name)) continue
    if (field.in === 'path' && override === undefined) continue
    seen.add(field.name)
    const flag = flagOf(
      field,
      { ...(options.partial ? { required: false } : {}), ...override },
      operation.paged,
    )
    flags.push(flag)
  }
  const page = (f: Flag) =>
    operation.paged && f.in === 'query' && (f.field === 'limit' || f.field === 'cursor')
  return [...flags.filter((f) => !page(f)), ...flags.filter(page)]
}
