import { createHash } from 'node:crypto'
import { mkdir, readdir, readFile, rename, stat, writeFile } from 'node:fs/promises'
import { homedir } from 'node:os'
import { dirname, join } from 'node:path'
import { EXIT, ExitError } from '../../exit-error.js'
import { plural } from '../../output.js'
import { bodyOfRow, type ImportKind, type Row } from './rows.js'

/*
 * What an import keeps on disk, so that a run after an interruption goes on without doing anything
 * twice: a state file per server, organization, kind, file and content
 * (`$XDG_STATE_HOME/rwa/imports/<hash>.json`) with the results of the rows done so far and the chunk in
 * flight, written down before it is sent. A file that changed after an import of it goes on from its
 * newest import (by generation), after the rows done if they are its first rows still (by the digest of
 * each row's body), but for rows then refused that it changed, sent again first; else it is refused (its
 * rows imported then would be imported again) unless `--again` says so.
 */

/** One row's outcome, as `--json` prints it. */
export interface RowResult {
  line: number
  status: number
  id: string | null
  /** A transfer's decision (`approved`, `rejected`): a rejected one is made, and refused by compliance. */
  decision?: string
  reason: string | null
  detail: string | null
}

export interface ImportState {
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
export function stateDir(env: NodeJS.ProcessEnv): string {
  const base =
    env.XDG_STATE_HOME && env.XDG_STATE_HOME !== '' ? env.XDG_STATE_HOME : join(homedir(), '.local', 'state')
  return join(base, 'rwa', 'imports')
}

/**
 * The state of importing the file at `file` with the content `sha256` as `kind` into `org_id` on
 * `server`. Its path is in the name: a copy of the file is a file of its own (its import must not write
 * over the original's state).
 */
export function statePath(
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
export const serverOf = (url: string): string => {
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
function changedRows(kind: ImportKind, earlier: ImportState, rows: readonly Row[]): number[] | undefined {
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
export const rowDigest = (kind: ImportKind, values: Record<string, string>): string =>
  createHash('sha256')
    .update(JSON.stringify(bodyOfRow(kind, values)))
    .digest('base64url')
    .slice(0, 22)

/** How many rows of an import made their record. */
const importedRows = (state: ImportState): number => state.results.filter((r) => r.status < 400).length

/** Written whole and renamed into place, so an interruption leaves the old state or the new one. */
export async function writeState(path: string, state: ImportState): Promise<void> {
  await mkdir(dirname(path), { recursive: true })
  const temporary = `${path}.${process.pid}.tmp`
  await writeFile(temporary, JSON.stringify(state), { mode: 0o600 })
  await rename(temporary, path)
}

/**
 * The state a run starts from. The newest import of this file is what was done with it last, every
 * earlier one led to it (a run goes on from the newest only): an older state, of this content or
 * another, may not know rows a later run made.
 */
export async function startingState(
  kind: ImportKind,
  file: string,
  rows: readonly Row[],
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
