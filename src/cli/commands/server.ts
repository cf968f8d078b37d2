import { loadServerConfig, type ServerConfig } from '../../../server/platform/config.js'
import { SERVER_SETTINGS } from '../../contract/server-settings.js'
import { DatabaseDirectoryMissingError, DatabaseOpenError } from '../../../server/platform/db/database.js'
import { UnreachableError } from '../../../server/platform/errors.js'
import { WrongMasterKeyError } from '../../../server/custody.js'
import { MasterKeyError } from '../../../server/platform/signing/master-key.js'
import { runServer } from '../../../server/start.js'
import { UrlFileError } from '../../../server/platform/url-file.js'
import { EXIT, ExitError } from '../exit-error.js'

/** The flags of `rwa server start`, by setting field (declared from SERVER_SETTINGS). */
export type ServerStartOptions = Record<string, string | undefined>

/** The flags given, keyed by the setting each one sets (a flag's attribute is its field's name). */
export const settingFlags = (options: ServerStartOptions) =>
  Object.fromEntries(SERVER_SETTINGS.filter((s) => s.flag).map((s) => [s.field, options[s.field]]))

/**
 * A failed start in the terms of the command that started it: a port that cannot be bound (found
 * before anything was created, see server/start.ts), or a database that cannot be opened.
 */
export function startFailure(error: unknown, config: ServerConfig, command: string): unknown {
  const code = (error as NodeJS.ErrnoException).code
  const address = `${config.host}:${config.port}`
  if (code === 'EADDRINUSE') {
    return new ExitError(
      EXIT.usage,
      `port ${config.port} on ${config.host} is already in use; nothing was started or created`,
      `stop what listens on ${address}, or pick another port: \`${command} --port 0\` takes a free one`,
    )
  }
  if (code === 'EACCES' || code === 'EADDRNOTAVAIL') {
    return new ExitError(
      EXIT.usage,
      `cannot listen on ${address} (${code}); nothing was started or created`,
      code === 'EACCES'
        ? 'ports below 1024 need privileges: use --port 4600 or another high port'
        : `${config.host} is not an address of this machine: use --host 127.0.0.1 or 0.0.0.0`,
    )
  }
  if (error instanceof DatabaseDirectoryMissingError) {
    return new ExitError(
      EXIT.usage,
      error.message,
      `check --db / RWA_DB for a typo, or create the directory first: mkdir -p ${error.directory}`,
    )
  }
  if (error instanceof UrlFileError) {
    return new ExitError(
      EXIT.usage,
      error.message,
      'check --url-file / RWA_URL_FILE for a typo, or create its directory first',
    )
  }
  if (error instanceof WrongMasterKeyError) {
    return new ExitError(
      EXIT.usage,
      error.message,
      'give the master key this database was started with (RWA_MASTER_KEY or --master-key-file); a lost master key cannot be recovered (README: Backup and restore)',
    )
  }
  if (error instanceof MasterKeyError) {
    return new ExitError(EXIT.usage, error.message, 'see README: Backup and restore')
  }
  if (error instanceof UnreachableError) {
    const redis = error.message.startsWith('Redis')
    return new ExitError(
      EXIT.unreachable,
      error.message,
      redis
        ? 'check that Redis runs and that --redis-url / RWA_REDIS_URL points at it (redis://host:6379)'
        : 'check that it runs and the URL is right (the PostgreSQL database must exist: createdb NAME)',
    )
  }
  if (error instanceof DatabaseOpenError) {
    return new ExitError(
      EXIT.unexpected,
      error.message,
      'check that the path is a writable SQLite file (or a new path in a writable directory): --db / RWA_DB',
    )
  }
  return error
}

/** `rwa server start`: the embedded server until SIGINT/SIGTERM. */
export async function serverStart(options: ServerStartOptions): Promise<void> {
  let config: ServerConfig
  try {
    config = loadServerConfig(settingFlags(options))
  } catch (error) {
    throw new ExitError(EXIT.usage, (error as Error).message, 'see `rwa server start --help`')
  }
  await runServer(config).catch((error) => {
    throw startFailure(error, config, 'rwa server start')
  })
}
