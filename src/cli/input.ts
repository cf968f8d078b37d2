import { readFileSync } from 'node:fs'
import { DuplicateKeyError, parseStrictJson } from '../text/strict-json.js'
import { type CliContext, readStdin } from './context.js'
import { EXIT, ExitError } from './exit-error.js'
import { attributeOf, type Flag, type FlagTable, flagsOf, longOf } from './flags/flag.js'

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
  const given = options[attributeOf(flag)]
  if (given === undefined) return undefined
  if (typeof given === 'boolean' || !flag.parse) return given
  return flag.parse(given as string | string[], longOf(flag))
}

/**
 * The request a command sends, from the flag table it was declared with (`declareFlags`): the
 * `--file FILE|-` JSON object if given, with every flag given set over it; then each required field
 * still missing (a flag with a `prompt`) is asked for on a terminal (inquirer, loaded only then) or,
 * elsewhere and with `--no-input`, the command fails with exit 2 naming every missing flag at once.
 * Serves bodies and queries alike.
 */
export async function requestFrom(
  ctx: CliContext,
  options: Record<string, unknown> & { file?: string },
): Promise<Record<string, unknown>> {
  const table = flagsOf(ctx.command)
  const file = typeof options.file === 'string' ? options.file : undefined
  const body = file ? await readJsonBody(file, ctx) : {}
  const fromFlags = new Set<string>()
  for (const flag of table) {
    const value = flagValue(flag, options)
    if (value === undefined) continue
    setPath(body, flag.field, value)
    fromFlags.add(flag.field)
  }
  // Kept so that a field the server refuses is named by its flag (or as coming from --file).
  ctx.request = { body, fromFlags, ...(file ? { file } : {}) }
  await fillRequired(ctx, body, table)
  return body
}

/** Asks for (or fails naming) every required field of `table` that `body` lacks. */
async function fillRequired(ctx: CliContext, body: Record<string, unknown>, table: FlagTable): Promise<void> {
  const missing = table.filter((f) => {
    const v = getPath(body, f.field)
    return f.prompt !== undefined && (v === undefined || v === null || v === '')
  })
  if (missing.length === 0) return
  if (!ctx.interactive) {
    throw new ExitError(
      EXIT.usage,
      `missing required ${missing.length === 1 ? 'flag' : 'flags'}: ${missing.map(longOf).join(', ')}`,
      ctx.options.input === false
        ? 'give them as flags (--no-input turns off prompts)'
        : 'give them as flags, or in --file; prompts only appear when stdin and stdout are terminals',
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
    setPath(body, flag.field, parse(answer))
    // An answer stands for its flag in error messages.
    ctx.request?.fromFlags.add(flag.field)
  }
}

/**
 * Confirms a destructive action such as `revoke API key key_1`: `--yes` skips the question; on a
 * terminal the user is asked; otherwise the command refuses (exit 2) rather than let a pipe's default
 * decide.
 */
export async function confirmDestructive(ctx: CliContext, action: string, warning?: string): Promise<void> {
  if (ctx.yes) return
  if (!ctx.interactive) {
    throw new ExitError(EXIT.usage, `refusing to ${action} without --yes`, 'add --yes to confirm')
  }
  const { confirm } = await import('@inquirer/prompts')
  const question = `${action[0]!.toUpperCase()}${action.slice(1)}?${warning ? ` ${warning}` : ''}`
  if (!(await confirm({ message: question, default: false }))) throw new ExitError(EXIT.usage, 'cancelled')
}

/** Reads `--file FILE|-` as text; `-` is stdin. `hint` says how to get a file that cannot be read. */
export async function readInputFile(path: string, ctx: CliContext, hint?: string): Promise<string> {
  if (path === '-') {
    if (ctx.options.apiKeyStdin)
      throw new ExitError(EXIT.usage, '--file - and --api-key-stdin both want stdin')
    return readStdin()
  }
  try {
    return readFileSync(path, 'utf8')
  } catch (error) {
    throw unreadable(path, error, hint)
  }
}

/** Exit 2 for a file that could not be read, said in words (`no such file`) rather than `ENOENT: ...`. */
export function unreadable(path: string, error: unknown, hint?: string): ExitError {
  const code = (error as NodeJS.ErrnoException).code
  const why =
    code === 'ENOENT'
      ? 'no such file'
      : code === 'EISDIR'
        ? 'it is a directory'
        : code === 'EACCES' || code === 'EPERM'
          ? 'permission denied'
          : (error as Error).message
  return new ExitError(EXIT.usage, `cannot read ${path}: ${why}`, hint)
}

/**
 * Parses `text` read from `source` (a path, or `-` for stdin) as JSON; exit 2 naming it otherwise. A key
 * twice in one object is refused, naming it (readers disagree on which one counts): exit 2, or with
 * `verified` (a file the command verifies: a proof, a credential) exit 8, a record that does not hold.
 */
export function parseJsonInput(
  text: string,
  source: string,
  hint?: string,
  options: { verified?: boolean } = {},
): unknown {
  const name = source === '-' ? 'stdin' : source
  try {
    return parseStrictJson(text)
  } catch (error) {
    if (error instanceof DuplicateKeyError)
      throw new ExitError(
        options.verified ? EXIT.verification : EXIT.usage,
        `${name}: ${error.message}`,
        hint,
      )
    throw new ExitError(EXIT.usage, `${name} is not valid JSON: ${(error as Error).message}`, hint)
  }
}

/** Reads `--file FILE|-` as a JSON object (a full request body). */
export async function readJsonBody(path: string, ctx: CliContext): Promise<Record<string, unknown>> {
  const value = parseJsonInput(await readInputFile(path, ctx), path)
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ExitError(EXIT.usage, `${path === '-' ? 'stdin' : path} must hold a JSON object`)
  }
  return value as Record<string, unknown>
}
