import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { join } from 'node:path'
import { answerIssuerRequest, type IssuerServer, listenLoopback } from './http.js'
import { DevIssuer, type DevIssuerState, loopbackAddress } from './issuer.js'

/*
 * A dev issuer kept in a directory, so that `rwa dev issuer start` (serving) and `issue`, `revoke`,
 * `suspend`, `reinstate`, `rotate-key` (changing) can run as separate processes:
 *
 * - `issuer.json` (mode 0600: it holds the private keys) is the issuer's state, replaced whole (a
 *   temporary file renamed over it) so the server never reads half of it; a change runs under
 *   `issuer.lock`, so two changes at once do not lose one;
 * - `server.json` says which process serves it, where; written when it starts, removed when it stops.
 *
 * The serving process reads `issuer.json` again whenever it changed: a revocation shows at the next fetch.
 */

const STATE = 'issuer.json'
const LOCK = 'issuer.lock'
const SERVER = 'server.json'
/** A lock older than this was left by a process that died while holding it. */
const STALE_LOCK_MS = 30_000

/** The state in `dir`, or undefined when it has none yet; throws naming the file when it is unreadable. */
export function readIssuer(dir: string): DevIssuer | undefined {
  const file = join(dir, STATE)
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw new Error(`cannot read ${file}: ${(error as Error).message}`)
  }
  try {
    return DevIssuer.fromJSON(JSON.parse(text) as DevIssuerState)
  } catch (error) {
    throw new Error(`${file} is not a dev issuer's state: ${(error as Error).message}`)
  }
}

function writeIssuer(dir: string, issuer: DevIssuer): void {
  const file = join(dir, STATE)
  const temp = `${file}.${process.pid}.tmp`
  writeFileSync(temp, `${JSON.stringify(issuer.toJSON(), null, 2)}\n`, { mode: 0o600 })
  renameSync(temp, file)
}

async function withLock<T>(dir: string, work: () => Promise<T>): Promise<T> {
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  const lock = join(dir, LOCK)
  let fd: number | undefined
  for (let waited = 0; fd === undefined; waited += 50) {
    try {
      fd = openSync(lock, 'wx', 0o600)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      const age = Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now())
      if (age > STALE_LOCK_MS) rmSync(lock, { force: true })
      else if (waited > 10_000) throw new Error(`${lock} is held by another rwa dev issuer command`)
      else await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }
  try {
    return await work()
  } finally {
    closeSync(fd)
    rmSync(lock, { force: true })
  }
}

/**
 * Changes the issuer in `dir` under its lock: `change` gets it as stored (undefined when there is none)
 * and answers the issuer to store and what to return.
 */
export function updateIssuer<T>(
  dir: string,
  change: (issuer: DevIssuer | undefined) => Promise<{ issuer: DevIssuer; result: T }>,
): Promise<T> {
  return withLock(dir, async () => {
    const { issuer, result } = await change(readIssuer(dir))
    writeIssuer(dir, issuer)
    return result
  })
}

/** Which process serves the issuer of a directory, where. */
export interface RunningIssuer {
  pid: number
  port: number
  did: string
  started_at: string
}

/** The process serving `dir`, when one is alive. */
export function runningIssuer(dir: string): RunningIssuer | undefined {
  let running: RunningIssuer
  try {
    running = JSON.parse(readFileSync(join(dir, SERVER), 'utf8')) as RunningIssuer
  } catch {
    return undefined
  }
  try {
    process.kill(running.pid, 0)
    return running
  } catch (error) {
    // EPERM: alive, another user's; ESRCH: gone (its file was left by a crash).
    return (error as NodeJS.ErrnoException).code === 'EPERM' ? running : undefined
  }
}

export interface ServedIssuer {
  issuer: DevIssuer
  /** True when the issuer was created now (the directory had none). */
  created: boolean
  /** The DID it had before, when it was moved to another port. */
  movedFrom: string | undefined
  server: IssuerServer
  close(): Promise<void>
}

/**
 * Serves the issuer of `dir` on 127.0.0.1:`port` (the port it had before when undefined, else 4610;
 * 0 picks a free one), creating it on first use. Throws the listen error (EADDRINUSE) before anything
 * is written.
 */
export async function serveIssuerDir(dir: string, port: number | undefined): Promise<ServedIssuer> {
  const before = existsSync(join(dir, STATE)) ? readIssuer(dir) : undefined
  const previousPort = before ? Number(new URL(before.base).port) : undefined
  let current: { issuer: DevIssuer; mtimeMs: number; size: number } | undefined
  // The state as it is on disk now: read again only when the file changed.
  const load = (): DevIssuer => {
    const stat = statSync(join(dir, STATE))
    if (!current || current.mtimeMs !== stat.mtimeMs || current.size !== stat.size) {
      current = { issuer: readIssuer(dir)!, mtimeMs: stat.mtimeMs, size: stat.size }
    }
    return current.issuer
  }
  const server = await listenLoopback(
    (req, res) => {
      let issuer: DevIssuer
      try {
        issuer = load()
      } catch (error) {
        res.writeHead(500, { 'content-type': 'text/plain' }).end((error as Error).message)
        return
      }
      answerIssuerRequest(issuer, req, res)
    },
    port ?? previousPort ?? DEFAULT_ISSUER_PORT,
  )
  let movedFrom: string | undefined
  let created = false
  try {
    const issuer = await updateIssuer(dir, async (stored) => {
      const address = loopbackAddress(server.port, stored?.path ?? [])
      if (!stored) {
        created = true
        return { issuer: DevIssuer.create(address), result: undefined }
      }
      if (stored.did !== address.did) {
        movedFrom = stored.did
        stored.moveTo(address)
      }
      return { issuer: stored, result: undefined }
    }).then(() => load())
    const running: RunningIssuer = {
      pid: process.pid,
      port: server.port,
      did: issuer.did,
      started_at: new Date().toISOString(),
    }
    writeFileSync(join(dir, SERVER), `${JSON.stringify(running)}\n`, { mode: 0o600 })
    return {
      issuer,
      created,
      movedFrom,
      server,
      close: async () => {
        if (runningIssuer(dir)?.pid === process.pid) rmSync(join(dir, SERVER), { force: true })
        await server.close()
      },
    }
  } catch (error) {
    await server.close()
    throw error
  }
}

/** The port `rwa dev issuer start` listens on the first time (the DID names it: keep it). */
export const DEFAULT_ISSUER_PORT = 4610
