import { loadServerConfig } from '../../../server/config.js'
import { runServer } from '../../../server/start.js'
import { EXIT, ExitError } from '../exit-error.js'

export interface ServerStartOptions {
  host?: string
  port?: string
  db?: string
}

/** `rwa server start`: the embedded server until SIGINT/SIGTERM. */
export async function serverStart(options: ServerStartOptions): Promise<void> {
  let config: ReturnType<typeof loadServerConfig>
  try {
    config = loadServerConfig({ host: options.host, port: options.port, db: options.db })
  } catch (error) {
    throw new ExitError(EXIT.usage, (error as Error).message, 'see `rwa server start --help`')
  }
  await runServer(config)
}
