import { readFileSync } from 'node:fs'
import type { Command } from 'commander'
import type { RwaClient } from '../client/index.js'
import { EXIT, ExitError } from './exit-error.js'
import { Output } from './output.js'
import { PROFILE_NAME, type Profile, profilesPath, readProfiles } from './profiles.js'

/** Where the CLI talks to when nothing says otherwise: the local server's default address. */
export const DEFAULT_URL = 'http://127.0.0.1:4600'

/** The options every command accepts (declared once on the program). */
export interface GlobalOptions {
  url?: string
  apiKey?: string
  apiKeyFile?: string
  apiKeyStdin?: boolean
  profile?: string
  json?: boolean
  color?: boolean
  input?: boolean
  yes?: boolean
  verbose?: boolean
}

/** A resolved connection and where each part came from (for `rwa config show`). */
export interface Connection {
  url: string
  urlSource: 'flag' | 'env' | 'profile' | 'default'
  apiKey?: string
  apiKeySource?: 'flag' | 'file' | 'stdin' | 'env' | 'profile'
  profileName?: string
}

/** Reads all of stdin as text (for `--api-key-stdin` and `--file -`). */
export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

/**
 * Resolves URL and API key. Precedence: flag > environment (RWA_URL, RWA_API_KEY) > profile (named by
 * --profile, RWA_PROFILE or the file's current_profile) > default URL.
 */
export async function resolveConnection(options: GlobalOptions, env = process.env): Promise<Connection> {
  const keyFlags = [
    options.apiKey !== undefined,
    options.apiKeyFile !== undefined,
    options.apiKeyStdin === true,
  ]
  if (keyFlags.filter(Boolean).length > 1) {
    throw new ExitError(EXIT.usage, 'give the API key one way: --api-key, --api-key-file or --api-key-stdin')
  }
  const { name: profileName, profile } = selectProfile(options, env)

  let url: string
  let urlSource: Connection['urlSource']
  if (options.url !== undefined) [url, urlSource] = [options.url, 'flag']
  else if (env.RWA_URL) [url, urlSource] = [env.RWA_URL, 'env']
  else if (profile?.url) [url, urlSource] = [profile.url, 'profile']
  else [url, urlSource] = [DEFAULT_URL, 'default']
  if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) {
    throw new ExitError(
      EXIT.usage,
      `invalid server URL ${JSON.stringify(url)}`,
      'expected e.g. http://127.0.0.1:4600',
    )
  }

  let apiKey: string | undefined
  let apiKeySource: Connection['apiKeySource']
  if (options.apiKey !== undefined) [apiKey, apiKeySource] = [options.apiKey, 'flag']
  else if (options.apiKeyFile !== undefined) {
    try {
      apiKey = readFileSync(options.apiKeyFile, 'utf8').trim()
    } catch (error) {
      throw new ExitError(EXIT.usage, `cannot read --api-key-file: ${(error as Error).message}`)
    }
    apiKeySource = 'file'
  } else if (options.apiKeyStdin) [apiKey, apiKeySource] = [(await readStdin()).trim(), 'stdin']
  else if (env.RWA_API_KEY) [apiKey, apiKeySource] = [env.RWA_API_KEY, 'env']
  else if (profile?.api_key) [apiKey, apiKeySource] = [profile.api_key, 'profile']

  return { url, urlSource, apiKey, apiKeySource, profileName }
}

/** The profile in use, if any. Naming a profile that does not exist is a usage error. */
function selectProfile(options: GlobalOptions, env: NodeJS.ProcessEnv): { name?: string; profile?: Profile } {
  const named = options.profile ?? (env.RWA_PROFILE || undefined)
  if (named !== undefined && !PROFILE_NAME.test(named)) {
    throw new ExitError(EXIT.usage, `invalid profile name ${JSON.stringify(named)}`)
  }
  const file = readProfiles()
  const name = named ?? file.current_profile
  if (name === undefined) return {}
  const profile = file.profiles[name]
  if (!profile) {
    if (named === undefined) return {}
    throw new ExitError(
      EXIT.usage,
      `no profile named ${name} in ${profilesPath()}`,
      'list profiles with `rwa config list`; create one with `rwa config set NAME --url URL --api-key-stdin`',
    )
  }
  return { name, profile }
}

/** Everything a command action needs: output, input mode, and (lazily) a client. */
export class CliContext {
  readonly options: GlobalOptions
  readonly out: Output
  /** Prompts are allowed: stdin and stdout are terminals and `--no-input` was not given. */
  readonly interactive: boolean
  private client?: RwaClient
  private connection?: Connection

  constructor(command: Command) {
    this.options = command.optsWithGlobals<GlobalOptions>()
    this.out = new Output({ json: this.options.json === true, color: this.options.color !== false })
    this.interactive =
      this.options.input !== false && process.stdin.isTTY === true && process.stdout.isTTY === true
  }

  get verbose(): boolean {
    return this.options.verbose === true
  }

  get yes(): boolean {
    return this.options.yes === true
  }

  async resolveConnection(): Promise<Connection> {
    this.connection ??= await resolveConnection(this.options)
    return this.connection
  }

  /** A client for the resolved connection. Without `public: true` an API key is required (exit 3). */
  async rwa(options: { public?: boolean } = {}): Promise<RwaClient> {
    const connection = await this.resolveConnection()
    if (!options.public && !connection.apiKey) {
      throw new ExitError(
        EXIT.auth,
        'no API key given',
        'pass --api-key-file FILE, --api-key-stdin, set RWA_API_KEY, or save a profile with `rwa config set`',
      )
    }
    if (!this.client) {
      const { createClient } = await import('../client/index.js')
      this.client = createClient({ baseUrl: connection.url, apiKey: connection.apiKey })
    }
    return this.client
  }

  async close(): Promise<void> {
    await this.client?.close()
  }
}

/** Runs a command action with a context, closing the client's connections afterwards. */
export async function withContext(
  command: Command,
  action: (ctx: CliContext) => Promise<void>,
): Promise<void> {
  const ctx = new CliContext(command)
  try {
    await action(ctx)
  } finally {
    await ctx.close()
  }
}
