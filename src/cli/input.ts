import { readFileSync } from 'node:fs'
import { DuplicateKeyError, parseStrictJson } from '../text/strict-json.js'
import { type CliContext, readStdin } from './context.js'
import { EXIT, ExitError } from './exit-error.js'

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
