import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterEach } from 'vitest'
import { execa, type ResultPromise } from 'execa'
import {
  assertDialectOfProject,
  createRedisPrefix,
  createTestDatabase,
  TEST_DIALECT,
  TEST_REDIS_URL,
} from './backends.js'
import { type ApiCaller, apiCaller } from './harness.js'
import { assertNoSecretsInLog } from './log-check.js'

/** The CLI binary as users run it: compiled JavaScript from dist/ (built by `npm test` first). */
export const RWA_BIN = resolve(import.meta.dirname, '../../bin/rwa')

/**
 * Where a server process keeps its data: a SQLite file, or (RWA_TEST_DIALECT=postgres) a PostgreSQL
 * database and a Redis key prefix. Several processes may share one, as instances of one deployment.
 */
export interface ServerStorage {
  dialect: 'sqlite' | 'postgres'
  /** The SQLite file (SQLite only). */
  dbPath?: string
  /** The flags and variables that point `rwa server start` at it. */
  args: string[]
  env: Record<string, string>
  /** Deletes the data (the file, or the database and the keys). */
  remove(): Promise<void>
}

/** New, empty storage of the test dialect (or of `dialect`). */
export async function createServerStorage(dialect = TEST_DIALECT): Promise<ServerStorage> {
  assertDialectOfProject()
  if (dialect === 'postgres') {
    // Empty: the server runs every migration itself, as on a new deployment.
    const database = await createTestDatabase({ empty: true })
    const redis = createRedisPrefix()
    return {
      dialect,
      args: ['--database-url', database.url, '--redis-url', TEST_REDIS_URL],
      // A deployment's master key (required over PostgreSQL), shared by every process over this storage.
      env: { RWA_REDIS_PREFIX: redis.prefix, RWA_MASTER_KEY: randomBytes(32).toString('base64url') },
      async remove() {
        await redis.clean()
        await database.drop()
      },
    }
  }
  const dir = mkdtempSync(join(tmpdir(), 'rwa-proc-'))
  return {
    dialect,
    dbPath: join(dir, 'rwa.db'),
    args: ['--db', join(dir, 'rwa.db')],
    env: {},
    remove: async () => rmSync(dir, { recursive: true, force: true }),
  }
}

/** The SQLite file at `path` as storage (kept: the caller removes it). */
export function sqliteStorageAt(path: string): ServerStorage {
  return { dialect: 'sqlite', dbPath: path, args: ['--db', path], env: {}, remove: async () => {} }
}

export interface ServerProcess {
  url: string
  adminKey: string
  storage: ServerStorage
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
   * Stops the server (if running) and removes its storage, unless it was given one; throws if any line
   * it logged (but the admin key's announcement) holds a key, a signature or a secret.
   */
  cleanup(): Promise<void>
}

/**
 * Starts `rwa server start` as a real process on a free port over new storage of the test dialect (or
 * over `storage`, to restart on the same data or to run a second instance), and resolves once it logs
 * `listening on`.
 */
export async function startServerProcess(
  options: { storage?: ServerStorage; env?: Record<string, string>; adminKey?: string } = {},
): Promise<ServerProcess> {
  const storage = options.storage ?? (await createServerStorage())
  const owned = options.storage === undefined
  const child = execa('node', [RWA_BIN, 'server', 'start', '--port', '0', ...storage.args], {
    env: {
      ...storage.env,
      ...options.env,
      ...(options.adminKey ? { RWA_ADMIN_KEY: options.adminKey } : {}),
    },
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
  let url: string
  try {
    ;({ url } = await ready)
  } catch (error) {
    if (owned) await storage.remove()
    throw error
  }
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
    storage,
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
      if (owned) await storage.remove()
      assertNoSecretsInLog(stderr.split('\n').filter((line) => !line.includes('admin API key (shown once)')))
    },
  }
}

/** Calls a real server over HTTP, with its admin key unless told otherwise. */
export function clientOf(
  server: Pick<ServerProcess, 'url' | 'adminKey'>,
  adminKey = server.adminKey,
): ApiCaller {
  return apiCaller(
    (path, init) => fetch(new URL(path, server.url), init),
    () => adminKey,
  )
}

/**
 * Instances of one deployment for the tests of a file: `rwa server start` processes over one new
 * PostgreSQL database and Redis prefix, as behind a load balancer, stopped and their storage removed
 * after each test. Call it once, at the top of the file.
 */
export function sharedInstances() {
  let storage: ServerStorage | undefined
  let servers: ServerProcess[] = []
  afterEach(async () => {
    for (const server of servers) await server.cleanup()
    servers = []
    await storage?.remove()
    storage = undefined
  })
  const newStorage = async () => {
    storage = await createServerStorage('postgres')
    return storage
  }
  return {
    /** Two processes, one after the other: the first prints the admin key, the second is given it. */
    async pair(env: Record<string, string> = {}): Promise<[ServerProcess, ServerProcess]> {
      const shared = await newStorage()
      const first = await startServerProcess({ storage: shared, env })
      servers.push(first)
      const second = await startServerProcess({ storage: shared, env, adminKey: first.adminKey })
      servers.push(second)
      return [first, second]
    },
    /** `n` processes started at the same moment, `adminKey` given to each (or none: one prints its own). */
    async startAtOnce(n: number, adminKey?: string): Promise<ServerProcess[]> {
      const shared = await newStorage()
      const started = await Promise.allSettled(
        Array.from({ length: n }, () => startServerProcess({ storage: shared, adminKey })),
      )
      servers = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []))
      const failed = started.find((s) => s.status === 'rejected')
      if (failed) throw (failed as PromiseRejectedResult).reason
      return servers
    },
  }
}
