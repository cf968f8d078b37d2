import { createHash } from 'node:crypto'
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises'
import { homedir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import type { Command } from 'commander'
import type { BatchOperationName, BatchResult } from '../../contract/batch.js'
import { ApiProblemError } from '../../client/errors.js'
import { rateLimitReached, withContext } from '../context.js'
import { CsvError, parseCsv } from '../csv.js'
import { EXIT, ExitError } from '../exit-error.js'
import { plural } from '../output.js'

/*
 * `rwa credentials import`, `rwa attestations import`, `rwa transfers import` (DESIGN §18): a CSV file
 * whose header row names the fields of the request body (`property_data.title_deed`, or for credentials
 * the bare property fields), sent in chunks of up to 1,000 rows as batches (`atomic: false`: a refused
 * row is reported and the others are kept).
 *
 * Resumable without doing anything twice: each chunk's Idempotency-Key is derived from the file's
 * content hash, the chunk size and the chunk's index, so the server replays a chunk it already ran; and
 * a state file (`$XDG_STATE_HOME/rwa/imports/<hash>.json`) keeps the results of the finished chunks,
 * so a run after an interruption skips them and goes on from the first unfinished one.
 */

export type ImportKind = 'credentials' | 'attestations' | 'transfers'

const OPERATION: Record<ImportKind, BatchOperationName> = {
  credentials: 'credentials.issue',
  attestations: 'attestations.submit',
  transfers: 'transfers.request',
}

/** The id of what each row makes, in its operation's answer. */
const ID_FIELD: Record<ImportKind, string> = {
  credentials: 'credential_id',
  attestations: 'attestation_id',
  transfers: 'transfer_id',
}

/** Fields that are numbers in the request body (a CSV cell is text). */
const NUMBERS: Record<ImportKind, readonly string[]> = {
  credentials: ['property_data.value_usd'],
  attestations: [],
  transfers: ['amount'],
}

/** A credential's property fields may be columns of their own, without the `property_data.` prefix. */
const PROPERTY_FIELDS = new Set(['address', 'type', 'value_usd', 'title_deed'])

const MAX_CHUNK = 1_000

/** The request body of one row: dotted header names nest, empty cells are left out. */
export function bodyOfRow(kind: ImportKind, values: Record<string, string>): Record<string, unknown> {
  const body: Record<string, unknown> = {}
  for (const [name, raw] of Object.entries(values)) {
    if (raw === '') continue
    const path =
      kind === 'credentials' && PROPERTY_FIELDS.has(name) ? ['property_data', name] : name.split('.')
    const numeric = NUMBERS[kind].includes(path.join('.')) && /^-?\d+(\.\d+)?$/.test(raw.trim())
    let at = body
    for (const key of path.slice(0, -1)) {
      if (typeof at[key] !== 'object' || at[key] === null) at[key] = {}
      at = at[key] as Record<string, unknown>
    }
    at[path[path.length - 1]!] = numeric ? Number(raw.trim()) : raw
  }
  return body
}

/** One row's outcome, as `--json` prints it. */
interface RowResult {
  line: number
  status: number
  id: string | null
  reason: string | null
  detail: string | null
}

interface ImportState {
  file: string
  sha256: string
  chunk_size: number
  /** The results of each finished chunk, by its index. */
  chunks: Record<string, RowResult[]>
}

/** `$XDG_STATE_HOME/rwa/imports/<sha256>-<kind>.json`, else under `~/.local/state`. */
function statePath(env: NodeJS.ProcessEnv, hash: string, kind: ImportKind): string {
  const base =
    env.XDG_STATE_HOME && env.XDG_STATE_HOME !== '' ? env.XDG_STATE_HOME : join(homedir(), '.local', 'state')
  return join(base, 'rwa', 'imports', `${hash}-${kind}.json`)
}

async function readState(path: string): Promise<ImportState | undefined> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as ImportState
  } catch {
    return undefined
  }
}

/** Written whole and renamed into place, so an interruption leaves the old state or the new one. */
async function writeState(path: string, state: ImportState): Promise<void> {
  await mkdir(dirname(path), { recursive: true })
  const temporary = `${path}.${process.pid}.tmp`
  await writeFile(temporary, JSON.stringify(state))
  await rename(temporary, path)
}

function bar(done: number, total: number): string {
  const width = 24
  const filled = total === 0 ? width : Math.round((done / total) * width)
  return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}]`
}

/** `rwa <kind> import FILE.csv [--chunk-size N]`. */
export function importCsv(kind: ImportKind) {
  return (file: string, options: { chunkSize?: string }, command: Command) =>
    withContext(command, async (ctx) => {
      let text: string
      try {
        text = await readFile(file, 'utf8')
      } catch (error) {
        throw new ExitError(
          EXIT.usage,
          `cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? error}`,
        )
      }
      let rows: ReturnType<typeof parseCsv>['rows']
      try {
        rows = parseCsv(text).rows
      } catch (error) {
        if (error instanceof CsvError) throw new ExitError(EXIT.usage, `${file} is not CSV: ${error.message}`)
        throw error
      }
      const hash = createHash('sha256').update(text).digest('hex')
      const path = statePath(process.env, hash, kind)
      const saved = await readState(path)

      const rwa = await ctx.rwa()
      let size = saved?.chunk_size
      if (size === undefined) {
        if (options.chunkSize !== undefined) {
          size = Number(options.chunkSize)
          if (!Number.isInteger(size) || size < 1 || size > MAX_CHUNK)
            throw new ExitError(EXIT.usage, `--chunk-size: expected a whole number from 1 to ${MAX_CHUNK}`)
        } else {
          // Each row counts as a request: a chunk takes at most half of the organization's minute.
          const self = (await rwa.billing.getKeySelf()).data
          size = Math.max(1, Math.min(MAX_CHUNK, Math.floor(self.limits.requests_per_minute / 2)))
        }
      }
      const state: ImportState = saved ?? { file: resolve(file), sha256: hash, chunk_size: size, chunks: {} }

      const chunks = Math.ceil(rows.length / size)
      let done = 0
      for (let index = 0; index < chunks; index++) {
        const chunk = rows.slice(index * size, (index + 1) * size)
        if (!state.chunks[index]) {
          const { data } = await waitingForTheMinute(
            chunk.length,
            () =>
              rwa.governance.batch({
                body: {
                  operations: chunk.map((row) => ({
                    op: OPERATION[kind],
                    body: bodyOfRow(kind, row.values),
                  })),
                  atomic: false,
                },
                idempotencyKey: `rwa-import-${hash.slice(0, 48)}-${size}-${index}`,
              }),
            (seconds, problem) =>
              ctx.out.warn(
                `${rateLimitReached(problem.context)}; waiting ${seconds} s, then rows ${chunk[0]!.line}–${chunk.at(-1)!.line} again (${done} of ${plural(rows.length, 'row')} done; the import goes on by itself)`,
              ),
          )
          state.chunks[index] = data.results.map((result, i) => rowResult(kind, chunk[i]!.line, result))
          await writeState(path, state)
        }
        done += chunk.length
        ctx.out.progress(`${kind} ${bar(done, rows.length)} ${done} of ${plural(rows.length, 'row')}`)
      }
      ctx.out.progressDone()

      const results = Object.keys(state.chunks)
        .map(Number)
        .sort((a, b) => a - b)
        .flatMap((i) => state.chunks[i]!)
      const failed = results.filter((r) => r.status >= 400)
      ctx.out.result(
        {
          file: state.file,
          rows: results.length,
          imported: results.length - failed.length,
          failed: failed.length,
          results,
        },
        () => {
          if (failed.length > 0)
            ctx.out.table(
              ['line', 'status', 'reason', 'detail'],
              failed.map((r) => [r.line, r.status, r.reason, r.detail]),
            )
          const summary = `${kind}: ${results.length - failed.length} of ${plural(results.length, 'row')} imported from ${file}`
          if (failed.length === 0) ctx.out.success(summary)
          else ctx.out.info(`${summary}; ${failed.length} refused (listed above)`)
        },
        results.filter((r) => r.id !== null).map((r) => r.id as string),
      )
      if (failed.length > 0) process.exitCode = EXIT.rejected
    })
}

/**
 * Sends a chunk; refused by the organization's per-minute limit (429, `window: minute`), waits the
 * Retry-After and sends it again with the same Idempotency-Key, as often as it takes. Each row counts
 * as a request (DESIGN §18), so an import of more rows than a minute allows meets that limit by design:
 * 10,000 rows on Enterprise (5,000 a minute) take two waits. The day's limit (hours away) and every
 * other refusal end the run, which a later run resumes from the state file; so does a chunk larger
 * than the minute's limit (`--chunk-size`), which no wait would let through.
 */
async function waitingForTheMinute<T>(
  rows: number,
  send: () => Promise<T>,
  onWait: (seconds: number, problem: ApiProblemError) => void,
): Promise<T> {
  for (;;) {
    try {
      return await send()
    } catch (error) {
      if (
        !(error instanceof ApiProblemError) ||
        error.status !== 429 ||
        error.context.window !== 'minute' ||
        error.retryAfterSeconds === undefined ||
        // A chunk larger than the whole minute's limit never fits, however long it waits.
        !(typeof error.context.limit === 'number' && rows <= error.context.limit)
      )
        throw error
      onWait(error.retryAfterSeconds, error)
      await new Promise((resolve) => setTimeout(resolve, error.retryAfterSeconds! * 1000))
    }
  }
}

function rowResult(kind: ImportKind, line: number, result: BatchResult): RowResult {
  const body = (result.body ?? {}) as Record<string, unknown>
  if (result.status >= 400)
    return {
      line,
      status: result.status,
      id: null,
      reason: typeof body.reason === 'string' ? body.reason : null,
      detail: typeof body.detail === 'string' ? body.detail : null,
    }
  const id = body[ID_FIELD[kind]]
  return { line, status: result.status, id: typeof id === 'string' ? id : null, reason: null, detail: null }
}
