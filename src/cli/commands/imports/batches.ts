import { createHash } from 'node:crypto'
import type { RwaClient } from '../../../client/index.js'
import { ApiProblemError } from '../../../client/errors.js'
import type { BatchResult } from '../../../contract/batch.js'
import type { ComplianceCheck } from '../../../contract/rwa.js'
import type { CliContext } from '../../context.js'
import { rateLimitReached } from '../../context.js'
import { EXIT, ExitError } from '../../exit-error.js'
import { plural } from '../../output.js'
import { bodyOfRow, type ImportKind, OPERATION, type Row } from './rows.js'
import { type ImportState, type RowResult, rowDigest, writeState } from './state.js'

/*
 * The rows of an import sent as batches (`atomic: false`: a refused row is reported and the others are
 * kept), each chunk written down as in flight before it is sent, and sent again as it was after an
 * interruption (the same rows and Idempotency-Key, which the server replays if it ran it), whatever chunk
 * size the run after is given. The key names the kind, the file's content hash and the chunk's rows, so
 * the server replays a chunk even for a run without the state file (given the same chunk size). A chunk
 * the server finds too large is sent again in halves; one refused by the minute's limit waits for it.
 */

/** The id of what each row makes, in its operation's answer. */
const ID_FIELD: Record<ImportKind, string> = {
  credentials: 'credential_id',
  attestations: 'attestation_id',
  transfers: 'transfer_id',
  identities: 'identity_id',
}

export const MAX_CHUNK = 1_000

function bar(done: number, total: number): string {
  const width = 24
  const filled = total === 0 ? width : Math.round((done / total) * width)
  return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}]`
}
/**
 * The rows to send next, by index: the batch in flight as it was sent, else refused rows fixed since
 * (`fixing`), else the rows after those done (`size` of them; `smaller.size` up to `smaller.until`,
 * after a batch over the server's request size).
 */
function nextBatch(
  state: ImportState,
  rowCount: number,
  size: number,
  smaller: { size: number; until: number } | undefined,
): { indices: number[]; fixing: boolean } {
  const pending = state.pending
  if (pending && 'rows' in pending) return { indices: pending.rows, fixing: true }
  if (!pending && state.again && state.again.length > 0)
    return { indices: state.again.slice(0, smaller?.size ?? size), fixing: true }
  const start = pending?.start ?? state.results.length
  const count =
    pending?.size ??
    (smaller && start < smaller.until
      ? Math.min(smaller.size, smaller.until - start)
      : Math.min(size, rowCount - start))
  return { indices: Array.from({ length: count }, (_, i) => start + i), fixing: false }
}

/** Lines of the file, for messages: `line 7`, `lines 2, 3, 4, 5, 6 and 3 more`. */
const linesOf = (lines: readonly number[]): string =>
  lines.length === 1
    ? `line ${lines[0]}`
    : `lines ${lines.slice(0, 5).join(', ')}${lines.length > 5 ? ` and ${lines.length - 5} more` : ''}`

/** Rows of the file by their number, counted from 1: `rows 31–60` when they follow each other. */
const rowsOf = (indices: readonly number[]): string =>
  indices.length === 1
    ? `row ${indices[0]! + 1}`
    : indices.every((i, j) => j === 0 || i === indices[j - 1]! + 1)
      ? `rows ${indices[0]! + 1}–${indices.at(-1)! + 1}`
      : `rows ${indices
          .slice(0, 5)
          .map((i) => i + 1)
          .join(', ')}${indices.length > 5 ? ` and ${indices.length - 5} more` : ''}`

/**
 * A chunk refused whole because rows of it fail their schema (`400` naming `operations[i].body...`), as
 * the CSV's lines: `credentials.csv line 17: property_data.value_usd: ...`. Undefined for any other
 * refusal.
 */
function refusedRows(
  error: ApiProblemError,
  chunk: ReadonlyArray<{ line: number }>,
  file: string,
): ExitError | undefined {
  // One line per field and message, naming the lines it is on: a column the operation does not take
  // (or lacks) is the same refusal on every row, said once.
  const byProblem = new Map<string, number[]>()
  for (const e of error.errors) {
    const match = /^operations\[(\d+)\]\.body\.?(.*)$/.exec(e.path)
    const row = match ? chunk[Number(match[1])] : undefined
    if (!row) continue
    const problem = `${match![2] || 'the row'}: ${e.message}`
    byProblem.set(problem, [...(byProblem.get(problem) ?? []), row.line])
  }
  if (error.status !== 400 || byProblem.size === 0) return undefined
  return new ExitError(
    EXIT.usage,
    [...byProblem].map(([problem, lines]) => `${file} ${linesOf(lines)}: ${problem}`).join('\n'),
    'nothing of that batch was imported; fix those lines and run the command again: it goes on after the rows done before them',
  )
}

/**
 * Sends a chunk; refused by the organization's per-minute limit (429, `window: minute`), waits the
 * Retry-After and sends it again with the same Idempotency-Key, as often as it takes. Each row counts
 * as a request (docs/batches.md, "Roles, limits, idempotency, audit"), so an import of more rows than a
 * minute allows meets that limit by design: 10,000 rows on Enterprise (5,000 a minute) take two waits. The
 * day's limit (hours away) and every other refusal end the run, which a later run resumes from the state
 * file; so does a chunk larger than the minute's limit (`--chunk-size`), which no wait would let through.
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
  const made: RowResult = {
    line,
    status: result.status,
    id: typeof id === 'string' ? id : null,
    reason: null,
    detail: null,
  }
  if (kind !== 'transfers' || typeof body.status !== 'string') return made
  const checks = (body.compliance_details as { checks?: ComplianceCheck[] } | undefined)?.checks ?? []
  const unmet = checks
    .filter((check) => !check.satisfied)
    .map((check) => `${check.requirement} (${check.jurisdiction}): ${check.reason}`)
  return {
    ...made,
    decision: body.status,
    ...(body.status === 'rejected' ? { reason: 'rejected', detail: unmet.join('; ') || null } : {}),
  }
}

/** An import under way: the rows of the file, the state kept of them and where, and the chunk size. */
export interface ImportRun {
  kind: ImportKind
  file: string
  /** The file's content hash, in every chunk's Idempotency-Key. */
  hash: string
  rows: readonly Row[]
  state: ImportState
  path: string
  size: number
}

/**
 * Sends every row not done yet (and first those to send again), chunk by chunk, writing the state down
 * before each chunk is sent and after it is answered.
 */
export async function sendRows(ctx: CliContext, rwa: RwaClient, run: ImportRun): Promise<void> {
  const { kind, file, hash, rows, state, path, size } = run
  // After a batch over the server's request size (413): its rows (those before `until`) go `size`
  // at a time; the rows after them in batches of the usual size again.
  let smaller: { size: number; until: number } | undefined
  while ((state.again?.length ?? 0) > 0 || state.pending || state.results.length < rows.length) {
    const { indices, fixing } = nextBatch(state, rows.length, size, smaller)
    const start = indices[0]!
    const count = indices.length
    const chunk = indices.map((i) => rows[i]!)
    if (!state.pending) {
      state.pending = fixing ? { rows: indices } : { start, size: count }
      await writeState(path, state)
    }
    const done = state.results.length
    let answered: BatchResult[]
    try {
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
            idempotencyKey: fixing
              ? `rwa-import-${kind}-${hash.slice(0, 40)}-again-${createHash('sha256').update(indices.join(',')).digest('hex').slice(0, 16)}`
              : `rwa-import-${kind}-${hash.slice(0, 40)}-${start}-${count}`,
          }),
        (seconds, problem) =>
          ctx.out.warn(
            `${rateLimitReached(problem.context)}; waiting ${seconds} s, then ${rowsOf(indices)} (${fixing ? linesOf(chunk.map((row) => row.line)) : `lines ${chunk[0]!.line}–${chunk.at(-1)!.line}`}) again (${done} of ${plural(rows.length, 'row')} done; the import goes on by itself)`,
          ),
      )
      answered = data.results
    } catch (error) {
      // Refused whole (a row's schema, the key's roles, the day's limit, its size): nothing of it ran,
      // so it is no longer in flight, and a fixed file may go on from it. A lost answer or a 5xx may
      // have run; so may a batch whose key the server is still running (an earlier run's, cut off,
      // still running after the client's wait): it stays in flight, to be sent again as it was.
      if (
        error instanceof ApiProblemError &&
        error.status >= 400 &&
        error.status < 500 &&
        error.reason !== 'idempotency_key_in_progress'
      ) {
        state.pending = undefined
        await writeState(path, state)
        if (error.status === 413) {
          // Over the server's request size (long rows): the same rows in smaller batches.
          if (count === 1)
            throw new ExitError(
              EXIT.usage,
              `${file} line ${chunk[0]!.line}: the row alone is over the server's request size${typeof error.context.max_bytes === 'number' ? ` (${error.context.max_bytes} bytes)` : ''}`,
              'shorten that row; the rows before it are imported, and a run again goes on from it',
            )
          // Half, and never more than this run's size (the batch may be one a run before sent).
          smaller = { size: Math.min(size, Math.ceil(count / 2)), until: indices.at(-1)! + 1 }
          ctx.out.warn(
            `${rowsOf(indices)} are over the server's request size as one batch; sending them ${smaller.size} at a time`,
          )
          continue
        }
        throw refusedRows(error, chunk, file) ?? error
      }
      throw error
    }
    // Each row answers once, in order; anything else would leave rows unknown (and resent).
    if (answered.length !== chunk.length || answered.some((result, i) => result.index !== i))
      throw new Error(
        `the server answered ${answered.length} results for a batch of ${chunk.length} rows (lines ${chunk[0]!.line}–${chunk.at(-1)!.line})`,
      )
    for (const [j, i] of indices.entries()) {
      state.results[i] = rowResult(kind, chunk[j]!.line, answered[j]!)
      state.digests[i] = rowDigest(kind, chunk[j]!.values)
    }
    if (fixing) {
      const sent = new Set(indices)
      state.again = state.again?.filter((i) => !sent.has(i))
      if (state.again?.length === 0) state.again = undefined
    }
    state.pending = undefined
    await writeState(path, state)
    ctx.out.progress(
      `${kind} ${bar(state.results.length, rows.length)} ${state.results.length} of ${plural(rows.length, 'row')}`,
    )
  }
}
