import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { type ResultPromise, execa } from 'execa'
import { assertNoSecretsInLog } from './log-check.js'

/** The CLI binary as users run it: compiled JavaScript from dist/ (built by `npm test` first). */
export const RWA_BIN = resolve(import.meta.dirname, '../../bin/rwa')

export interface ServerProcess {
  url: string
  adminKey: string
  dbPath: string
  process: ResultPromise
  /** Everything the server wrote to stderr so far. */
  stderr(): string
  /**
   * Its log so far, one record per complete line (JSON: stderr is not a terminal). Throws on a line
   * that is not JSON.
   */
  logRecords(): Record<string, any>[]
  /** The first log record `matches` accepts, once the server has written it (lines are written async). */
  waitForLogRecord(matches: (record: Record<string, any>) => boolean): Promise<Record<string, any>>
  /** Sends SIGTERM and waits for a clean exit; returns the exit code. */
  stop(): Promise<number | undefined>
  /**
   * Stops the server (if running) and deletes its database directory; throws if any line it logged
   * (but the admin key's announcement) holds a key, a signature or a secret.
   */
  cleanup(): Promise<void>
}

/**
 * Starts `rwa server start` as a real process on a free port over a temp SQLite file (or `dbPath`, to
 * restart on the same data), and resolves once it logs `listening on`.
 */
export async function startServerProcess(
  options: { dbPath?: string; env?: Record<string, string>; adminKey?: string } = {},
): Promise<ServerProcess> {
  const dir = options.dbPath ? undefined : mkdtempSync(join(tmpdir(), 'rwa-proc-'))
  const dbPath = options.dbPath ?? join(dir!, 'rwa.db')
  const child = execa('node', [RWA_BIN, 'server', 'start', '--port', '0', '--db', dbPath], {
    env: { ...options.env, ...(options.adminKey ? { RWA_ADMIN_KEY: options.adminKey } : {}) },
    reject: false,
    buffer: false,
  })
  let stderr = ''
  const ready = new Promise<{ url: string }>((resolvePromise, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start in 20 s:\n${stderr}`)), 20_000)
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
      // The line is JSON when stderr is not a terminal: the URL ends at a quote or a space.
      const match = /listening on (http:\/\/[^\s"]+)/.exec(stderr)
      if (match) {
        clearTimeout(timer)
        resolvePromise({ url: match[1]! })
      }
    })
    child.on('exit', () => {
      clearTimeout(timer)
      reject(new Error(`server exited before listening:\n${stderr}`))
    })
  })
  const { url } = await ready
  const printed = /admin API key \(shown once\): (rwa_live_[A-Za-z0-9_-]{43})/.exec(stderr)?.[1]
  const adminKey = options.adminKey ?? printed ?? ''

  const logRecords = (): Record<string, any>[] =>
    stderr
      .slice(0, stderr.lastIndexOf('\n') + 1)
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line))

  let exited: Promise<number | undefined> | undefined
  const stop = () => {
    exited ??= (async () => {
      if (child.exitCode === null) child.kill('SIGTERM')
      const result = await child
      return result.exitCode
    })()
    return exited
  }
  return {
    url,
    adminKey,
    dbPath,
    process: child,
    stderr: () => stderr,
    logRecords,
    async waitForLogRecord(matches) {
      for (;;) {
        const found = logRecords().find(matches)
        if (found) return found
        if (child.exitCode !== null) throw new Error(`the server exited without logging it:\n${stderr}`)
        await new Promise((resolveWait) => setTimeout(resolveWait, 20))
      }
    },
    stop,
    async cleanup() {
      await stop()
      if (dir) rmSync(dir, { recursive: true, force: true })
      assertNoSecretsInLog(stderr.split('\n').filter((line) => !line.includes('admin API key (shown once)')))
    },
  }
}
