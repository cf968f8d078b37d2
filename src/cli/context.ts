import { readFileSync } from 'node:fs'
import type { Command } from 'commander'
import type { BillingClient } from '../client/billing.js'
import type { HttpClient } from '../client/http.js'
import type { RwaClient } from '../client/index.js'
import type { OperationTable } from '../contract/operation.js'
import { EXIT, ExitError } from './exit-error.js'
import { CommandFailure, type FailureContext, type RequestInput } from './command-failure.js'
import { flagsOf, spelledOf } from './flags/flag.js'
import type { Answer, OperationId, OperationRequest } from './operation.js'
import { Output, plural } from './output.js'
import { PROFILE_NAME, type Profile, readProfiles, unknownProfile } from './profiles.js'
import { OPERATIONS } from './spec/operations.js'

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
  quiet?: boolean
  /** On 429, wait for Retry-After and try again (up to `waitMax` seconds in all). */
  wait?: boolean
  waitMax?: string
  /** The Idempotency-Key of the command's first POST (docs/accountability.md, "Retrying a write safely"). */
  idempotencyKey?: string
}

/** `--wait-max` when not given: two minutes covers any per-minute window. */
export const DEFAULT_WAIT_MAX_SECONDS = 120

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
  const urlOrigin = {
    flag: '--url',
    env: 'RWA_URL',
    profile: `the url of profile ${profileName}`,
    default: '',
  }
  checkServerUrl(url, urlOrigin[urlSource])

  let apiKey: string | undefined
  let apiKeySource: Connection['apiKeySource']
  if (options.apiKey !== undefined) [apiKey, apiKeySource] = [options.apiKey, 'flag']
  else if (options.apiKeyFile !== undefined)
    [apiKey, apiKeySource] = [readApiKeyFile(options.apiKeyFile), 'file']
  else if (options.apiKeyStdin) [apiKey, apiKeySource] = [await readApiKeyStdin(), 'stdin']
  else if (env.RWA_API_KEY) [apiKey, apiKeySource] = [env.RWA_API_KEY, 'env']
  else if (profile?.api_key) [apiKey, apiKeySource] = [profile.api_key, 'profile']

  return { url, urlSource, apiKey, apiKeySource, profileName }
}

/**
 * A server URL is a base: http or https, host and port, optionally a path prefix (behind a proxy). A
 * URL without a scheme, with another scheme, or pointing into the API (`/console/...`) is refused
 * naming where it came from and what was probably meant.
 */
export function checkServerUrl(url: string, origin: string): void {
  const where = origin === '' ? 'server URL' : origin
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) {
    throw new ExitError(
      EXIT.usage,
      `${where} ${JSON.stringify(url)} has no scheme`,
      `did you mean http://${url.replace(/^\/+/, '')}?`,
    )
  }
  if (!URL.canParse(url))
    throw new ExitError(
      EXIT.usage,
      `${where} ${JSON.stringify(url)} is not a URL`,
      'e.g. http://127.0.0.1:4600',
    )
  const parsed = new URL(url)
  if (!/^https?:$/.test(parsed.protocol)) {
    throw new ExitError(
      EXIT.usage,
      `${where} ${JSON.stringify(url)} is not http or https`,
      'e.g. http://127.0.0.1:4600 or https://rwa.example.com',
    )
  }
  const apiPath = parsed.pathname.indexOf('/console')
  if (apiPath >= 0 || parsed.search !== '' || parsed.hash !== '') {
    const base = `${parsed.origin}${apiPath >= 0 ? parsed.pathname.slice(0, apiPath) : parsed.pathname.replace(/\/+$/, '')}`
    throw new ExitError(
      EXIT.usage,
      `${where} ${JSON.stringify(url)} points into the API; give the server's base URL`,
      `did you mean ${base}?`,
    )
  }
}

/** The API key in `path` (`--api-key-file`), trimmed; an unreadable or empty file is a usage error. */
export function readApiKeyFile(path: string): string {
  let key: string
  try {
    key = readFileSync(path, 'utf8').trim()
  } catch (error) {
    throw new ExitError(EXIT.usage, `cannot read --api-key-file: ${(error as Error).message}`)
  }
  if (key === '') {
    throw new ExitError(
      EXIT.usage,
      `--api-key-file ${path} is empty`,
      'put the key (rwa_live_...) in it, e.g. from `rwa keys create --name NAME -q > FILE`',
    )
  }
  return key
}

/** The API key on stdin (`--api-key-stdin`), trimmed; empty stdin is a usage error. */
export async function readApiKeyStdin(): Promise<string> {
  const key = (await readStdin()).trim()
  if (key === '') {
    throw new ExitError(
      EXIT.usage,
      '--api-key-stdin: stdin was empty',
      'e.g. `pass show rwa/prod | rwa ... --api-key-stdin`',
    )
  }
  return key
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
    throw unknownProfile(name)
  }
  return { name, profile }
}

/** Everything a command action needs: output, input mode, and (lazily) a client. */
export class CliContext {
  /** The command that runs: its flag table (`flagsOf`) builds the request. */
  readonly command: Command
  readonly options: GlobalOptions
  readonly out: Output
  /** Prompts are allowed: stdin and stdout are terminals and `--no-input` was not given. */
  readonly interactive: boolean
  /** Seconds `--wait` may spend waiting out rate limits (0 without `--wait`). */
  readonly waitMaxSeconds: number
  /** The fields this command is sending, once built (see `requestOf` in ./request.ts). */
  request?: RequestInput
  private http?: HttpClient
  private client?: RwaClient
  private billingClient?: BillingClient
  private connection?: Connection

  constructor(command: Command) {
    this.command = command
    this.options = command.optsWithGlobals<GlobalOptions>()
    this.out = new Output({
      json: this.options.json === true,
      quiet: this.options.quiet === true,
      color: this.options.color !== false,
    })
    this.interactive =
      this.options.input !== false && process.stdin.isTTY === true && process.stdout.isTTY === true
    const waitMax = parseWaitMax(this.options.waitMax)
    this.waitMaxSeconds = this.options.wait ? waitMax : 0
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
    const http = await this.transport(options)
    if (!this.client) {
      const { clientOver } = await import('../client/index.js')
      this.client = clientOver(http)
    }
    return this.client
  }

  /**
   * The billing part of the client alone, for the billing commands: it loads neither the governance
   * client nor the schemas of src/contract/rwa.ts (see docs/performance.md, "CLI cold start").
   */
  async billing(options: { public?: boolean } = {}): Promise<BillingClient> {
    const http = await this.transport(options)
    if (!this.billingClient) {
      const { billingClientOver } = await import('../client/billing.js')
      this.billingClient = billingClientOver(http)
    }
    return this.billingClient
  }

  /**
   * Calls one operation of the route table with a request the command line built. A billing operation
   * loads the billing table alone (docs/performance.md, "CLI cold start"); a public one needs no key.
   */
  async call<K extends OperationId>(id: K, request: OperationRequest): Promise<Answer<K>> {
    const spec = OPERATIONS[id]!
    const http = await this.transport({ public: spec.public === true })
    const [routes, { callOperation }] = await Promise.all([
      spec.table === 'billing'
        ? import('../contract/billing-routes.js').then((m): OperationTable => m.billingRoutes)
        : import('../contract/routes.js').then((m): OperationTable => m.ROUTES),
      import('../client/operations.js'),
    ])
    const answer = callOperation(http, routes[id]!, {
      params: request.params,
      ...(Object.keys(request.query).length > 0 ? { query: request.query } : {}),
      // An optional body left empty is not sent: absent, the server reads it as given nowhere (the
      // pair of `rwa trust revoke` goes in the query, and an empty body would be a pair without ends).
      ...(spec.body === 'required' || (spec.body && Object.keys(request.body).length > 0)
        ? { body: request.body }
        : {}),
    })
    // The table is read by name here; the answer is the operation's as the client parsed it.
    return answer as Promise<Answer<K>>
  }

  /** The transport every part of the client shares: one connection pool, closed by `close()`. */
  private async transport(options: { public?: boolean }): Promise<HttpClient> {
    const connection = await this.resolveConnection()
    if (!options.public && !connection.apiKey) {
      throw new ExitError(
        EXIT.auth,
        'no API key given',
        'pass --api-key-file FILE, --api-key-stdin, set RWA_API_KEY, or save a profile with `rwa config set`',
      )
    }
    if (!this.http) {
      const { HttpClient } = await import('../client/http.js')
      this.http = new HttpClient({
        baseUrl: connection.url,
        apiKey: connection.apiKey,
        rateLimitWaitSeconds: this.waitMaxSeconds,
        ...(this.options.idempotencyKey === undefined ? {} : { idempotencyKey: this.options.idempotencyKey }),
        // The same command's first run (a CI step run again after a timeout) may still be running: wait
        // for its answer, past the minute after which a dead run's claim may be taken over.
        inProgressWaitSeconds: IN_PROGRESS_WAIT_SECONDS,
        onInProgressWait: ({ waitedSeconds }) => {
          if (waitedSeconds === 0)
            this.out.info(
              'a request with the same Idempotency-Key is still running; waiting for its answer (at most 70 s)',
            )
        },
        onRateLimitWait: ({ seconds, waitedSeconds, problem }) =>
          this.out.warn(
            `${rateLimitReached(problem.context)}; waiting ${seconds} s before retrying (--wait: ${waitedSeconds} of ${this.waitMaxSeconds} s used)`,
          ),
      })
    }
    return this.http
  }

  async close(): Promise<void> {
    await this.http?.close()
  }
}

/**
 * How long a command waits for a request with its Idempotency-Key still in flight: a little more than
 * the minute after which the server lets a retry take over a claim whose request died.
 */
const IN_PROGRESS_WAIT_SECONDS = 70

/** Which limit a 429 reached, from its context: `rate limit of 60 requests per minute reached ...`. */
export function rateLimitReached(context: Record<string, unknown>): string {
  const { limit, window, org_id: org } = context
  if (typeof limit !== 'number' || typeof window !== 'string') return 'rate limit reached'
  return `rate limit of ${plural(limit, 'request')} per ${window} reached${typeof org === 'string' ? ` for organization ${org}` : ''}`
}

/** `--wait-max SECONDS`: a whole number of seconds, default 120. */
export function parseWaitMax(value: string | undefined): number {
  if (value === undefined) return DEFAULT_WAIT_MAX_SECONDS
  if (!/^\d+$/.test(value.trim())) {
    throw new ExitError(
      EXIT.usage,
      `--wait-max must be a whole number of seconds, got ${JSON.stringify(value)}`,
      'e.g. --wait-max 300',
    )
  }
  return Number(value)
}

/** `transfers request` for the command `rwa transfers request`. */
export function commandPath(command: Command): string {
  const names: string[] = []
  for (let c: Command | null = command; c?.parent; c = c.parent) names.unshift(c.name())
  return names.join(' ')
}

/** What a failure message may say about the command that failed: its flags, arguments and request. */
export function failureContext(command: Command, ctx?: CliContext): FailureContext {
  const fields = flagsOf(command)
  return {
    command: commandPath(command),
    fields,
    args: command.args,
    argumentNames: command.registeredArguments.map((a) => a.name()),
    flagValues: Object.fromEntries(
      command.options
        // An earlier spelling (`--org`) is not listed: its value is its flag's (`--org-id`).
        .filter((o) => o.long && !o.hidden && command.getOptionValue(o.attributeName()) !== undefined)
        .map((o) => [o.long!, command.getOptionValue(o.attributeName()) as unknown]),
    ),
    spelled: spelledOf(command),
    request: ctx?.request,
    waitMaxSeconds: ctx?.waitMaxSeconds,
  }
}

/**
 * Runs a command action with a context, closing the client's connections afterwards. A failure leaves
 * wrapped with what it needs to speak in CLI terms (which flag gave a refused field, which command ran).
 */
export async function withContext(
  command: Command,
  action: (ctx: CliContext) => Promise<void>,
): Promise<void> {
  let ctx: CliContext | undefined
  try {
    ctx = new CliContext(command)
    await action(ctx)
  } catch (error) {
    throw new CommandFailure(error, failureContext(command, ctx))
  } finally {
    await ctx?.close()
  }
}
