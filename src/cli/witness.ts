import { mkdir, readFile, rename, writeFile } from 'node:fs/promises'
import { homedir } from 'node:os'
import { dirname, join } from 'node:path'
import type { SeenCheckpoint } from '../tlog/bundle.js'
import { orgOfOrigin } from '../tlog/origin.js'
import { plural } from '../text/plural.js'
import { parseStrictJson } from '../text/strict-json.js'
import { EXIT, ExitError } from './exit-error.js'

/*
 * What this machine, as a witness, saw of each log (`rwa log verify`, read by `rwa audit verify`): the
 * last checkpoint verified and the key that signed it, under `$XDG_STATE_HOME/rwa/`. A log is kept
 * under the origin its checkpoints sign, `<public host>/console/audit/<org_id>`: never under a field the
 * server sends beside them, which anyone between could change to make an old log look new
 * (docs/governance.md, "`rwa log verify`").
 */

/** One log as a witness keeps it: the last checkpoint verified, and the key that signed it. */
export interface WitnessEntry extends SeenCheckpoint {
  origin: string
  vkey: string
  checkpoint: string
  /** The server URLs this machine verified the log through (absent in states of an earlier rwa). */
  servers?: string[]
}

export interface WitnessState {
  logs: Record<string, WitnessEntry>
}

/** `$XDG_STATE_HOME/rwa/log-checkpoints.json`, else `~/.local/state/rwa/log-checkpoints.json`. */
export function witnessPath(env: NodeJS.ProcessEnv = process.env): string {
  const base =
    env.XDG_STATE_HOME && env.XDG_STATE_HOME !== '' ? env.XDG_STATE_HOME : join(homedir(), '.local', 'state')
  return join(base, 'rwa', 'log-checkpoints.json')
}

export async function readWitness(): Promise<WitnessState> {
  let text: string
  try {
    text = await readFile(witnessPath(), 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { logs: {} }
    throw error
  }
  try {
    const parsed = parseStrictJson(text) as WitnessState
    if (parsed && typeof parsed.logs === 'object' && parsed.logs !== null) return parsed
  } catch {}
  throw new ExitError(
    EXIT.unexpected,
    `${witnessPath()} is not the log state rwa writes`,
    'move it away to start over',
  )
}

/** Writes the state whole, through a temporary file renamed over it: never half a file. */
export async function writeWitness(state: WitnessState): Promise<void> {
  const path = witnessPath()
  await mkdir(dirname(path), { recursive: true })
  const temporary = `${path}.${process.pid}.tmp`
  await writeFile(temporary, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 })
  await rename(temporary, path)
}

/**
 * A server URL as the witness keeps it, so that one server is one spelling: WHATWG-parsed (scheme and
 * host in lower case, the default port dropped), without userinfo, query, fragment or trailing slash.
 * Only what it shows: the witness never trusts a log for the URL it came through.
 */
export function normalizedServer(url: string): string {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return url
  }
  const path = parsed.pathname.replace(/\/+$/, '')
  return `${parsed.protocol}//${parsed.host}${path}`
}

/**
 * The log of the same organization this machine verified under another origin, if any, whatever
 * server URL it came through. A log that now signs its checkpoints under a new origin, with a key
 * seen for the first time, could be anyone's log of that name: trusting its key on first use would
 * pass any rollback (docs/governance.md, "`rwa log verify`"). No spelling of a server's URL (a
 * trailing slash, `localhost` or `127.0.0.1`, a proxy) tells two servers apart, so none is asked.
 */
export function otherOriginSeen(state: WitnessState, origin: string): WitnessEntry | undefined {
  const org = orgOfOrigin(origin)
  if (org === undefined) return undefined
  return Object.values(state.logs).find((seen) => seen.origin !== origin && orgOfOrigin(seen.origin) === org)
}

/** How a refusal names the log held under another origin: its origin, when, and through which servers. */
export function heldLog(held: WitnessEntry): string {
  const through = held.servers?.length ? ` through ${held.servers.map(normalizedServer).join(', ')}` : ''
  return `${held.origin} (${plural(held.tree_size, 'entry', 'entries')}, last verified on ${held.seen_at}${through})`
}
