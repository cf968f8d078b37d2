import type { CliContext } from './context.js'
import { EXIT, ExitError } from './exit-error.js'
import { attributeOf, type Flag, type FlagTable, flagsOf, longOf } from './flags/flag.js'
import { readJsonBody } from './input.js'
import type { OperationRequest } from './operation.js'
import type { CliOperation } from './spec/types.js'

/*
 * The request a command of an operation sends, from the flag table it was declared with
 * (./flags/flag.ts): the `--file FILE|-` JSON object if given, with every flag given set over it; then
 * each required field still missing (a flag with a `prompt`) is asked for on a terminal (inquirer,
 * loaded only then) or, elsewhere and with `--no-input`, the command fails with exit 2 naming every
 * missing flag at once. The object is then split into the operation's path parameters (with the
 * command's arguments), query and body, by the part each field is in.
 */

const getPath = (body: Record<string, unknown>, path: string): unknown =>
  path
    .split('.')
    .reduce<unknown>(
      (v, k) => (v && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined),
      body,
    )

function setPath(body: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('.')
  let target = body
  for (const key of keys.slice(0, -1)) {
    const next = target[key]
    if (!next || typeof next !== 'object' || Array.isArray(next)) target[key] = {}
    target = target[key] as Record<string, unknown>
  }
  target[keys.at(-1)!] = value
}

/** The value of `flag` in commander's options, parsed by the flag's parser (undefined when not given). */
function flagValue(flag: Flag, options: Record<string, unknown>): unknown {
  const given = options[attributeOf(longOf(flag))]
  if (given === undefined) return undefined
  if (typeof given === 'boolean' || !flag.parse) return given
  return flag.parse(given as string | string[], longOf(flag))
}

/** Builds the request of `operation` from the command's flags, `--file` and `args` (see above). */
export async function requestOf(
  ctx: CliContext,
  operation: CliOperation,
  options: Record<string, unknown> & { file?: unknown },
  args: ReadonlyArray<readonly [field: string, value: string | undefined]> = [],
): Promise<OperationRequest> {
  const table = flagsOf(ctx.command)
  const file = typeof options.file === 'string' ? options.file : undefined
  const given = file ? await readJsonBody(file, ctx) : {}
  const fromFlags = new Set<string>()
  for (const flag of table) {
    const value = flagValue(flag, options)
    if (value === undefined) continue
    setPath(given, flag.key, value)
    fromFlags.add(flag.key)
  }
  // Kept so that a field the server refuses is named by its flag (or as coming from --file).
  ctx.request = { body: given, fromFlags, ...(file ? { file } : {}) }
  await fillRequired(ctx, given, table)
  return splitRequest(operation, table, given, args)
}

/**
 * The object a command built, as path parameters, query and body: each key goes where its flag's field
 * is, a key no flag gives where the operation has a field of that name, and any other into the body
 * (or the query of an operation without one), for the server to refuse by name.
 */
function splitRequest(
  operation: CliOperation,
  table: FlagTable,
  given: Record<string, unknown>,
  args: ReadonlyArray<readonly [field: string, value: string | undefined]>,
): OperationRequest {
  const request: OperationRequest = { params: {}, query: {}, body: {} }
  for (const [key, value] of Object.entries(given)) {
    const flag = table.find((f) => f.key === key || f.key.startsWith(`${key}.`))
    const field = operation.fields.find((f) => f.name === key || f.name.startsWith(`${key}.`))
    const part = flag?.in ?? field?.in ?? (operation.body || operation.method !== 'get' ? 'body' : 'query')
    if (part === 'path') request.params[flag?.field ?? key] = String(value)
    else request[part][key] = value
  }
  // An argument given wins over a flag of the same parameter (`rwa subscription get ORG`).
  for (const [field, value] of args) if (value !== undefined) request.params[field] = value
  return request
}

/** Asks for (or fails naming) every required field of `table` that `body` lacks. */
async function fillRequired(ctx: CliContext, body: Record<string, unknown>, table: FlagTable): Promise<void> {
  // The body's other form given (`--vc` of `rwa attestations submit`): the first form's fields are not asked for.
  if (table.some((f) => f.alternative && getPath(body, f.key) !== undefined)) return
  const missing = table.filter((f) => {
    const v = getPath(body, f.key)
    return f.prompt !== undefined && (v === undefined || v === null || v === '')
  })
  if (missing.length === 0) return
  if (!ctx.interactive) {
    throw new ExitError(
      EXIT.usage,
      `missing required ${missing.length === 1 ? 'flag' : 'flags'}: ${missing.map(longOf).join(', ')}`,
      ctx.options.input === false
        ? 'give them as flags (--no-input turns off prompts)'
        : `give them as flags${ctx.command.options.some((o) => o.long === '--file') ? ', or in --file' : ''}; prompts only appear when stdin and stdout are terminals`,
    )
  }
  const { input } = await import('@inquirer/prompts')
  for (const flag of missing) {
    const parse = (answer: string) => (flag.parse ? flag.parse(answer, longOf(flag)) : answer)
    const answer = await input({
      message: flag.prompt!,
      required: true,
      // A bad answer is asked again, with the flag's own message.
      validate: (text) => {
        try {
          parse(text)
          return true
        } catch (error) {
          return error instanceof Error ? error.message : String(error)
        }
      },
    })
    setPath(body, flag.key, parse(answer))
    // An answer stands for its flag in error messages.
    ctx.request?.fromFlags.add(flag.key)
  }
}
