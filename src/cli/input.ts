import { readFileSync } from 'node:fs'
import { type CliContext, readStdin } from './context.js'
import { EXIT, ExitError } from './exit-error.js'

/** A field a request needs: where it goes in the body, the flag that gives it, the question asked for it. */
export interface RequiredField {
  /** Dotted path in the body, e.g. `property_data.value_usd`. */
  path: string
  flag: string
  question: string
  /** Turns a typed answer into the body's value (numbers, lists); the flag's own parser does the same. */
  parse?: (answer: string) => unknown
}

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

/**
 * The request body: the `--file FILE|-` JSON object if given, with every flag that was given set over
 * it (keys are dotted body paths; undefined values are skipped).
 */
export async function bodyFrom(
  ctx: CliContext,
  file: string | undefined,
  flags: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const body = file ? await readJsonBody(file, ctx) : {}
  const fromFlags = new Set<string>()
  for (const [path, value] of Object.entries(flags)) {
    if (value === undefined) continue
    setPath(body, path, value)
    fromFlags.add(path)
  }
  // Kept so that a field the server refuses is named by its flag (or as coming from --file).
  ctx.request = { body, fromFlags, ...(file ? { file } : {}) }
  return body
}

/**
 * Fills missing required fields of `body`: on a terminal by asking (inquirer, loaded only then);
 * otherwise, or with `--no-input`, fails with exit 2 listing every missing flag at once.
 */
export async function fillRequired(
  ctx: CliContext,
  body: Record<string, unknown>,
  fields: RequiredField[],
): Promise<void> {
  const missing = fields.filter((f) => {
    const v = getPath(body, f.path)
    return v === undefined || v === null || v === ''
  })
  if (missing.length === 0) return
  if (!ctx.interactive) {
    throw new ExitError(
      EXIT.usage,
      `missing required ${missing.length === 1 ? 'flag' : 'flags'}: ${missing.map((f) => f.flag).join(', ')}`,
      ctx.options.input === false
        ? 'give them as flags (--no-input turns off prompts)'
        : 'give them as flags, or in --file; prompts only appear when stdin and stdout are terminals',
    )
  }
  const { input } = await import('@inquirer/prompts')
  for (const field of missing) {
    const answer = await input({ message: field.question, required: true })
    setPath(body, field.path, field.parse ? field.parse(answer) : answer)
    // An answer stands for its flag in error messages.
    ctx.request?.fromFlags.add(field.path)
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

/** Reads `--file FILE|-` as text; `-` is stdin. */
export async function readInputFile(path: string, ctx: CliContext): Promise<string> {
  if (path === '-') {
    if (ctx.options.apiKeyStdin)
      throw new ExitError(EXIT.usage, '--file - and --api-key-stdin both want stdin')
    return readStdin()
  }
  try {
    return readFileSync(path, 'utf8')
  } catch (error) {
    throw new ExitError(EXIT.usage, `cannot read ${path}: ${(error as Error).message}`)
  }
}

/** Parses `text` read from `source` (a path, or `-` for stdin) as JSON; exit 2 naming it otherwise. */
export function parseJsonInput(text: string, source: string, hint?: string): unknown {
  try {
    return JSON.parse(text)
  } catch (error) {
    throw new ExitError(
      EXIT.usage,
      `${source === '-' ? 'stdin' : source} is not valid JSON: ${(error as Error).message}`,
      hint,
    )
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

/** A whole number flag, or exit 2 naming the flag. */
export function parseInteger(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined
  if (!/^-?\d+$/.test(value.trim()))
    throw new ExitError(EXIT.usage, `${flag} must be a whole number, got ${JSON.stringify(value)}`)
  return Number(value)
}

/** A number flag (decimals allowed), or exit 2 naming the flag. */
export function parseNumber(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined
  const n = Number(value)
  if (value.trim() === '' || !Number.isFinite(n))
    throw new ExitError(EXIT.usage, `${flag} must be a number, got ${JSON.stringify(value)}`)
  return n
}

/** A comma-separated (or repeated) list flag. */
export function parseList(values: string[] | string | undefined): string[] | undefined {
  if (values === undefined) return undefined
  const all = Array.isArray(values) ? values : [values]
  return all
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter((v) => v !== '')
}
