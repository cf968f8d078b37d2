import { isUtf8 } from 'node:buffer'
import { createHash } from 'node:crypto'
import { mkdir, readdir, readFile, rename, stat, writeFile } from 'node:fs/promises'
import { homedir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import type { Command } from 'commander'
import { ApiProblemError } from '../../client/errors.js'
import type { BatchOperationName, BatchResult } from '../../contract/batch.js'
import type { ComplianceCheck } from '../../contract/rwa.js'
import { rateLimitReached, withContext } from '../context.js'
import { CsvError, parseCsv } from '../csv.js'
import { EXIT, ExitError } from '../exit-error.js'
import { unreadable } from '../input.js'
import { plural } from '../output.js'

/*
 * `rwa credentials import`, `rwa attestations import`, `rwa transfers import`
 * (docs/batches.md, "Imports from CSV"): a CSV file whose header row names the fields of the request body
 * (`property_data.title_deed`, or for credentials the bare property fields), sent in chunks of up to 1,000
 * rows as batches (`atomic: false`: a refused row is reported and the others are kept).
 *
 * Resumable without doing anything twice. A state file per server, organization, kind, file and content
 * (`$XDG_STATE_HOME/rwa/imports/<hash>.json`) keeps the results of the rows done so far, and the chunk
 * in flight is written down before it is sent: a run after an interruption sends that chunk again as
 * it was (the same rows and Idempotency-Key, which the server replays if it ran it), whatever chunk
 * size it is given, and goes on from the row after it. The key names the kind, the file's content hash
 * and the chunk's rows, so the server replays a chunk even for a run without the state file (given the
 * same chunk size). A file that changed after an import of it goes on from its newest import (by
 * generation), after the rows done if they are its first rows still (by the digest of each row's body),
 * but for rows then refused that it changed, sent again first; else it is refused (its rows imported
 * then would be imported again) unless `--again` says so.
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
  /** A transfer's decision (`approved`, `rejected`): a rejected one is made, and refused by compliance. */
  decision?: string
  reason: string | null
  detail: string | null
}

interface ImportState {
  version: 2
  file: string
  /** The file's content hash. */
  sha256: string
  kind: ImportKind
  server: string
  org_id: string
  /** The outcome of each row done so far, in the file's order. */
  results: RowResult[]
  /** Of each row done, the digest of the body it sent (`rowDigest`): a changed file goes on after them. */
  digests: string[]
  /**
   * The chunk sent last, not yet answered: rows `start` to `start + size - 1`, counted from 0; or rows
   * done before, refused, that the file has since fixed (`rows`), sent again.
   */
  pending?: { start: number; size: number } | { rows: number[] }
  /** Rows done before, refused, that the file has since changed: to be sent again before going on. */
  again?: number[]
  /**
   * One more than the newest import of the file had when this run began (1 for the first): which of
   * the file's imports is the newest, whatever their files' times say (a copied or restored state
   * directory, a clock stepped back). Absent in states written before it (read as 0).
   */
  generation?: number
}

/** The directory of the import states: `$XDG_STATE_HOME/rwa/imports`, else under `~/.local/state`. */
function stateDir(env: NodeJS.ProcessEnv): string {
  const base =
    env.XDG_STATE_HOME && env.XDG_STATE_HOME !== '' ? env.XDG_STATE_HOME : join(homedir(), '.local', 'state')
  return join(base, 'rwa', 'imports')
}

/**
 * The state of importing the file at `file` with the content `sha256` as `kind` into `org_id` on
 * `server`. Its path is in the name: a copy of the file is a file of its own (its import must not write
 * over the original's state).
 */
function statePath(
  dir: string,
  scope: Pick<ImportState, 'file' | 'server' | 'org_id' | 'kind' | 'sha256'>,
): string {
  const name = createHash('sha256')
    .update([scope.server, scope.org_id, scope.kind, scope.sha256, scope.file].join('\n'))
    .digest('hex')
  return join(dir, `${name.slice(0, 40)}.json`)
}

async function readState(path: string): Promise<ImportState | undefined> {
  try {
    const state = JSON.parse(await readFile(path, 'utf8')) as ImportState
    return state?.version === 2 && Array.isArray(state.results) && Array.isArray(state.digests)
      ? state
      : undefined
  } catch {
    return undefined
  }
}

/** A server's URL as one however typed: `http://HOST:PORT/` and `http://HOST:PORT` are one. */
const serverOf = (url: string): string => {
  try {
    return new URL(url).href.replace(/\/+$/, '')
  } catch {
    return url
  }
}

/**
 * The imports of the same file into the same organization as the same kind, whatever its content then,
 * the newest first: the one of the highest generation (the time its state was written between equal
 * ones), unless a state an earlier CLI wrote, without a generation, was written after it (that CLI ran
 * since, on the same directory). Each run counts its generation from the newest, so a copied or
 * restored state directory, whose files' times say nothing, still knows its newest.
 */
async function importsOfFile(dir: string, current: ImportState): Promise<ImportState[]> {
  let names: string[]
  try {
    names = await readdir(dir)
  } catch {
    return []
  }
  const found: Array<{ state: ImportState; at: number }> = []
  for (const name of names.filter((n) => n.endsWith('.json'))) {
    const path = join(dir, name)
    const state = await readState(path)
    if (
      state &&
      state.file === current.file &&
      serverOf(state.server) === current.server &&
      state.org_id === current.org_id &&
      state.kind === current.kind
    )
      found.push({ state, at: (await stat(path)).mtimeMs })
  }
  found.sort((a, b) => (b.state.generation ?? 0) - (a.state.generation ?? 0) || b.at - a.at)
  const counted = found[0]
  const unCounted = found.filter((f) => f.state.generation === undefined).sort((a, b) => b.at - a.at)[0]
  const newest = unCounted && (!counted || unCounted.at > counted.at) ? unCounted : counted
  return newest ? [newest.state, ...found.filter((f) => f !== newest).map((f) => f.state)] : []
}

/**
 * The rows of an earlier import that `rows` changed, when each is one then refused (nothing made of
 * it): those to send again. Undefined when a row done then changed, or rows were removed.
 */
function changedRows(
  kind: ImportKind,
  earlier: ImportState,
  rows: ReadonlyArray<{ values: Record<string, string> }>,
): number[] | undefined {
  if (earlier.digests.length > rows.length) return undefined
  const changed: number[] = []
  for (const [i, digest] of earlier.digests.entries()) {
    if (digest === rowDigest(kind, rows[i]!.values)) continue
    if (!(earlier.results[i]!.status >= 400)) return undefined
    changed.push(i)
  }
  return changed
}

/** What identifies a row's request: the digest of the body it sends. */
const rowDigest = (kind: ImportKind, values: Record<string, string>): string =>
  createHash('sha256')
    .update(JSON.stringify(bodyOfRow(kind, values)))
    .digest('base64url')
    .slice(0, 22)

/** How many rows of an import made their record. */
const importedRows = (state: ImportState): number => state.results.filter((r) => r.status < 400).length

/** Written whole and renamed into place, so an interruption leaves the old state or the new one. */
async function writeState(path: string, state: ImportState): Promise<void> {
  await mkdir(dirname(path), { recursive: true })
  const temporary = `${path}.${process.pid}.tmp`
  await writeFile(temporary, JSON.stringify(state), { mode: 0o600 })
  await rename(temporary, path)
}

function bar(done: number, total: number): string {
  const width = 24
  const filled = total === 0 ? width : Math.round((done / total) * width)
  return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}]`
}

/** The file as text; exit 2 for a file that cannot be read or is not UTF-8 (a spreadsheet's "CSV" may be Latin-1). */
async function readUtf8(file: string): Promise<string> {
  let bytes: Buffer
  try {
    bytes = await readFile(file)
  } catch (error) {
    throw unreadable(file, error)
  }
  if (isUtf8(bytes)) return bytes.toString('utf8')
  const at = firstNonUtf8(bytes)
  // Lines as the CSV counts them: a record ends at CRLF, LF or a lone CR (old Mac exports).
  let line = 1
  for (let i = 0; i < at; i++) if (bytes[i] === 0x0a || (bytes[i] === 0x0d && bytes[i + 1] !== 0x0a)) line++
  throw new ExitError(
    EXIT.usage,
    `${file} is not UTF-8 text (line ${line} holds a byte that is not)`,
    'save it as UTF-8 (a spreadsheet\'s "CSV UTF-8"), or convert it: iconv -f LATIN1 -t UTF-8',
  )
}

/** The offset of the first byte that does not belong to a well-formed UTF-8 sequence (RFC 3629). */
export function firstNonUtf8(bytes: Uint8Array): number {
  let i = 0
  while (i < bytes.length) {
    const lead = bytes[i]!
    if (lead < 0x80) {
      i++
      continue
    }
    const length =
      lead >= 0xc2 && lead <= 0xdf
        ? 2
        : lead >= 0xe0 && lead <= 0xef
          ? 3
          : lead >= 0xf0 && lead <= 0xf4
            ? 4
            : 0
    if (length === 0 || i + length > bytes.length) return i
    // The second byte's range narrows after E0, ED, F0 and F4 (no overlong forms, surrogates, or code
    // points past U+10FFFF).
    const second = bytes[i + 1]!
    const low = lead === 0xe0 ? 0xa0 : lead === 0xf0 ? 0x90 : 0x80
    const high = lead === 0xed ? 0x9f : lead === 0xf4 ? 0x8f : 0xbf
    if (second < low || second > high) return i
    for (let k = 2; k < length; k++) if ((bytes[i + k]! & 0xc0) !== 0x80) return i
    i += length
  }
  return bytes.length
}

/**
 * Exit 2 naming the columns the operation has no field for, before anything is sent: otherwise every
 * row of the file would be refused for them, a batch at a time. Read from the operation's own request
 * schema (src/contract/rwa.ts, the server's), so the CLI keeps no list of its own; the rows' values are
 * checked by the server, row by row.
 */
async function checkColumns(
  kind: ImportKind,
  file: string,
  header: readonly string[],
  rows: ReadonlyArray<{ values: Record<string, string> }>,
): Promise<void> {
  // Only columns with a value somewhere: an empty cell is left out of its row's body, so a column
  // empty in every row (a spreadsheet's unused "notes") reaches the server in none.
  const filled = header.filter((name) => rows.some((row) => row.values[name] !== ''))
  const { issueCredentialRequestSchema, submitAttestationRequestSchema, requestTransferRequestSchema } =
    await import('../../contract/rwa.js')
  const schema = {
    credentials: issueCredentialRequestSchema,
    attestations: submitAttestationRequestSchema,
    transfers: requestTransferRequestSchema,
  }[kind]
  // A body with every such column filled: only the fields the schema does not know are looked at.
  const parsed = schema.safeParse(bodyOfRow(kind, Object.fromEntries(filled.map((name) => [name, 'x']))))
  const unknown = parsed.success
    ? []
    : parsed.error.issues.flatMap((issue) =>
        issue.code === 'unrecognized_keys' ? issue.keys.map((key) => [...issue.path, key].join('.')) : [],
      )
  if (unknown.length === 0) return
  // A column is refused when the field it fills is, or lies inside, one the schema does not know
  // (`a.b` makes an unknown field `a`).
  const columns = filled.filter((name) => {
    const field = kind === 'credentials' && PROPERTY_FIELDS.has(name) ? `property_data.${name}` : name
    return unknown.some((u) => field === u || field.startsWith(`${u}.`))
  })
  const named = columns.length > 0 ? columns : unknown
  throw new ExitError(
    EXIT.usage,
    `${file}: ${named.length === 1 ? 'the column' : 'the columns'} ${named.join(', ')} ${named.length === 1 ? 'is not a field' : 'are not fields'} of ${OPERATION[kind]}; nothing was sent`,
    `the first line names the fields: see \`rwa ${kind} import --help\``,
  )
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

/**
 * The state a run starts from. The newest import of this file is what was done with it last, every
 * earlier one led to it (a run goes on from the newest only): an older state, of this content or
 * another, may not know rows a later run made.
 */
async function startingState(
  kind: ImportKind,
  file: string,
  rows: ReadonlyArray<{ line: number; values: Record<string, string> }>,
  dir: string,
  fresh: ImportState,
  again: boolean,
  info: (text: string) => void,
): Promise<ImportState> {
  const imports = await importsOfFile(dir, fresh)
  const newest = imports[0]
  const state = newest?.sha256 === fresh.sha256 ? newest : fresh
  state.generation = Math.max(0, ...imports.map((e) => e.generation ?? 0)) + 1
  if (state !== fresh || !newest) return state
  // The file changed since its last import. If the rows done then are its first rows still, but for
  // rows then refused (nothing made of them) that it has changed since, go on: those rows sent again,
  // then the rows after them (a refused row fixed, rows added at the end). Not with a batch of it in
  // flight (sent, its answer lost: perhaps run). Else its rows imported then would be imported again:
  // refused, unless --again.
  const changed = newest.pending ? undefined : changedRows(kind, newest, rows)
  if (changed && newest.digests.length > 0) {
    state.results = newest.results.map((r, i) => ({ ...r, line: rows[i]!.line }))
    state.digests = [...newest.digests]
    if (changed.length > 0) state.again = changed
    info(
      `${file} changed since an import of it; its first ${plural(state.results.length, 'row')} are those done then${changed.length > 0 ? `, but for ${plural(changed.length, 'refused row')} changed since: sending ${changed.length === 1 ? 'it' : 'them'} again,` : ':'} going on after them`,
    )
    return state
  }
  if (again) return state
  if (newest.pending)
    throw new ExitError(
      EXIT.usage,
      `${file} changed while a batch of its last import was in flight (sent, its answer not received: perhaps run)`,
      `put ${file} back as it was and run the command again: that batch is sent again as it was (replayed if it ran) and the import finishes; then make the change. --again would import every row of it as it is now, those too`,
    )
  const before = imports
    .filter((e) => importedRows(e) > 0 || e.pending)
    .sort((a, b) => importedRows(b) - importedRows(a))[0]
  if (before)
    throw new ExitError(
      EXIT.usage,
      `${file} changed since ${importedRows(before)} of its rows were imported into ${fresh.org_id}, and not only after them: importing it now would import those rows again`,
      `put the rows still to import in a file of their own, or pass --again to import every row of ${file} as it is now`,
    )
  return state
}

/** `rwa <kind> import FILE.csv [--chunk-size N] [--again]`. */
export function importCsv(kind: ImportKind) {
  return (file: string, options: { chunkSize?: string; again?: boolean }, command: Command) =>
    withContext(command, async (ctx) => {
      let chunkSize: number | undefined
      if (options.chunkSize !== undefined) {
        chunkSize = Number(options.chunkSize)
        if (!Number.isInteger(chunkSize) || chunkSize < 1 || chunkSize > MAX_CHUNK)
          throw new ExitError(EXIT.usage, `--chunk-size: expected a whole number from 1 to ${MAX_CHUNK}`)
      }
      if (ctx.options.idempotencyKey !== undefined)
        throw new ExitError(
          EXIT.usage,
          "--idempotency-key: an import names a key for each batch of rows itself (from the file's content and the rows), so that a run again replays what was done",
          'leave --idempotency-key out: running the same import again does nothing twice',
        )
      const text = await readUtf8(file)
      let parsed: ReturnType<typeof parseCsv>
      try {
        parsed = parseCsv(text)
      } catch (error) {
        if (error instanceof CsvError) throw new ExitError(EXIT.usage, `${file} is not CSV: ${error.message}`)
        throw error
      }
      const rows = parsed.rows
      await checkColumns(kind, file, parsed.header, rows)
      const hash = createHash('sha256').update(text).digest('hex')
      const rwa = await ctx.rwa()
      const server = serverOf((await ctx.resolveConnection()).url)
      const self = (await rwa.billing.getKeySelf()).data
      const dir = stateDir(process.env)
      const fresh: ImportState = {
        version: 2,
        file: resolve(file),
        sha256: hash,
        kind,
        server,
        org_id: self.org_id,
        results: [],
        digests: [],
      }
      const path = statePath(dir, fresh)
      const state = await startingState(kind, file, rows, dir, fresh, options.again === true, (text) =>
        ctx.out.info(text),
      )
      // Each row counts as a request: by default a chunk takes at most half of the organization's minute.
      const size =
        chunkSize ?? Math.max(1, Math.min(MAX_CHUNK, Math.floor(self.limits.requests_per_minute / 2)))
      // After a batch over the server's request size (413): its rows (those before `until`) go `size`
      // at a time; the rows after them in batches of the usual size again.
      let smaller: { size: number; until: number } | undefined

      // Ctrl-C: what is done and what is in flight are on disk already (the chunk is written down before
      // it is sent), so stopping at once loses nothing; say how to go on.
      const interrupted = () => {
        ctx.out.progressDone()
        ctx.out.warn(
          `interrupted: ${state.results.length} of ${plural(rows.length, 'row')} done${state.pending ? ', a batch in flight' : ''}; run the same command again to go on (nothing done is done twice)`,
        )
        process.exit(EXIT.interrupted)
      }
      process.once('SIGINT', interrupted)
      try {
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
      } finally {
        process.off('SIGINT', interrupted)
      }
      ctx.out.progressDone()

      const results = state.results
      const failed = results.filter((r) => r.status >= 400)
      const rejected = results.filter((r) => r.decision === 'rejected')
      ctx.out.result(
        {
          file: state.file,
          rows: results.length,
          imported: results.length - failed.length,
          failed: failed.length,
          ...(kind === 'transfers' ? { rejected: rejected.length } : {}),
          results,
        },
        () => {
          const listed = results.filter((r) => r.status >= 400 || r.decision === 'rejected')
          if (listed.length > 0)
            ctx.out.table(
              ['line', 'status', 'reason', 'detail'],
              listed.map((r) => [r.line, r.status, r.reason, r.detail]),
            )
          const summary = `${kind}: ${results.length - failed.length} of ${plural(results.length, 'row')} imported from ${file}`
          const notes = [
            ...(failed.length > 0 ? [`${failed.length} refused`] : []),
            ...(rejected.length > 0 ? [`${rejected.length} rejected by compliance`] : []),
          ]
          if (notes.length === 0) ctx.out.success(summary)
          else ctx.out.info(`${summary}; ${notes.join(', ')} (listed above)`)
        },
        results.filter((r) => r.id !== null).map((r) => r.id as string),
      )
      if (failed.length > 0 || rejected.length > 0) process.exitCode = EXIT.rejected
    })
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
