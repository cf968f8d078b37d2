import { z } from 'zod'
import { apiKeySecretSchema } from '../../src/contract/billing.js'
import { SERVER_SETTINGS } from '../../src/contract/server-settings.js'
import { DEFAULT_PUBLIC_RATE, type PublicRate } from './limits/public-bucket.js'

/**
 * `--public-rate-limit`: `RATE/BURST` (requests per second, at most BURST at once; `20/100`), or `off`
 * (also `0`) for no limit. A burst under 1 would refuse every request, so it is refused here instead.
 */
const publicRateSchema = z
  .string()
  .trim()
  .transform((text, check): PublicRate | null => {
    if (/^(off|0)$/i.test(text)) return null
    const match = /^(\d+(?:\.\d+)?)\/(\d+)$/.exec(text)
    const perSecond = Number(match?.[1])
    const burst = Number(match?.[2])
    if (!match || !(perSecond > 0) || !(burst >= 1) || perSecond > 1e6 || burst > 1e6) {
      check.addIssue({
        code: 'custom',
        message: `expected RATE/BURST, requests per second and the most at once, e.g. 20/100 (rate > 0, burst >= 1), or off; got ${JSON.stringify(text)}`,
      })
      return z.NEVER
    }
    return { perSecond, burst }
  })
import { MASTER_KEY_PATTERN } from './signing/master-key.js'

/** A TCP port: what zod would say of `eighty` ("received NaN") or `70000` tells nobody what to give. */
const PORT_FORM = 'expected a port number, a whole number from 0 to 65535'
const portSchema = z.coerce
  .number({ error: PORT_FORM })
  .int({ error: PORT_FORM })
  .min(0, { error: PORT_FORM })
  .max(65535, { error: PORT_FORM })

/** Server settings: flags win over RWA_* variables, which win over the defaults. */
/** A setting that is true or false (`1` or `0`), false by default. */
const booleanSetting = z
  .preprocess(
    (v) =>
      v === true || v === 'true' || v === '1' ? true : v === false || v === 'false' || v === '0' ? false : v,
    z.boolean({ error: 'expected true or false (1 or 0)' }),
  )
  .default(false)

export const serverConfigSchema = z.object({
  host: z.string().min(1).default('127.0.0.1'),
  port: portSchema.default(4600),
  db: z.string().min(1).default('rwa.db'),
  publicUrl: z
    .url({ protocol: /^https?$/ })
    .optional()
    .describe('Base URL verifiers reach the service at; written into credentials (status lists)'),
  databaseUrl: z
    .url({
      protocol: /^postgres(ql)?$/,
      error:
        'must be a PostgreSQL URL, postgres://user:password@host:5432/name (only PostgreSQL, or SQLite with --db, is supported)',
    })
    .optional(),
  redisUrl: z.url({ protocol: /^rediss?$/ }).optional(),
  redisPrefix: z
    .string()
    .regex(/^[A-Za-z0-9:_.-]{1,64}$/, 'expected 1-64 letters, digits or : _ . -')
    .default('rwa:'),
  adminKey: apiKeySecretSchema.optional(),
  /**
   * The key-encryption key of the signing keys (README.md, "Signing keys at rest"): 32 bytes as base64url.
   * Never logged.
   */
  masterKey: z.string().regex(MASTER_KEY_PATTERN, 'expected 32 bytes as 43 base64url characters').optional(),
  masterKeyFile: z.string().min(1).optional(),
  paymentProvider: z.enum(['local', 'stripe']).default('local'),
  stripeSecretKey: z
    .string()
    .regex(/^(sk|rk)_\S+$/, 'expected a Stripe secret key (sk_...) or restricted key (rk_...)')
    .optional(),
  stripeWebhookSecret: z
    .string()
    .regex(/^whsec_\S+$/, 'expected the webhook signing secret (whsec_...)')
    .optional(),
  stripePricePro: z.string().min(1).optional(),
  stripePriceEnterprise: z.string().min(1).optional(),
  stripeApiBase: z
    .url({ protocol: /^https?$/ })
    .refine(
      (url) => new URL(url).pathname === '/',
      'expected an origin without a path, e.g. http://127.0.0.1:12111',
    )
    .optional(),
  /** `json` (one object a line) or `pretty` (for people); unset: pretty on a terminal, JSON otherwise. */
  logFormat: z.enum(['json', 'pretty']).optional(),
  logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** A second port serving only `GET /metrics`, without a key; unset: metrics only to the admin key. */
  metricsPort: portSchema.optional(),
  /** Seconds between the first SIGTERM and closing the listener, while /readyz answers 503. */
  drainSeconds: z.coerce.number().min(0).max(3600).default(0),
  /** A file the server writes its URL into once ready, and removes on a clean shutdown (server/platform/url-file.ts). */
  urlFile: z.string().min(1).optional(),
  publicRateLimit: publicRateSchema.default(DEFAULT_PUBLIC_RATE),
  /** Proxies in front whose X-Forwarded-For entries are believed (server/pipeline/limits/public-limit.ts). */
  trustProxy: z.coerce.number().int().min(0).max(10).default(0),
  /** Webhook endpoints may be http to a loopback address (a developer's machine; `rwa sandbox`). */
  allowHttpWebhooks: booleanSetting,
  /** Trusted issuers' did:web documents and status lists may be fetched over http from loopback. */
  allowHttpIssuers: booleanSetting,
  /** How old a trusted issuer's status list may be when an evaluation relies on it: `1h`, `30m`, `90s` (`durationMs`). */
  issuerStatusMaxAge: z
    .string()
    .regex(/^[1-9]\d{0,8}[smhd]$/, 'expected a duration such as 1h, 30m or 90s')
    .default('1h'),
})

export type ServerConfig = z.infer<typeof serverConfigSchema>

/** The RWA_* variable of each setting, from the table `rwa server start --help` prints. */
const ENV_NAMES = Object.fromEntries(SERVER_SETTINGS.map((s) => [s.field, s.env])) as Record<
  keyof ServerConfig,
  string
>

/** What RWA_PAYMENT_PROVIDER=stripe cannot run without (RWA_STRIPE_PRICE_ENTERPRISE is optional). */
const STRIPE_REQUIRED = ['stripeSecretKey', 'stripeWebhookSecret', 'stripePricePro'] as const

// A setting validated here but missing from the table would be unreachable by its variable and
// absent from --help: fail at load, loudly.
for (const field of Object.keys(serverConfigSchema.shape)) {
  if (!(field in ENV_NAMES)) throw new Error(`server setting ${field} is missing from SERVER_SETTINGS`)
}

/** The flag of each setting that has one, e.g. `--port`. */
const FLAG_OF_FIELD = new Map(
  SERVER_SETTINGS.filter((s) => s.flag).map((s) => [s.field, s.flag!.split(' ')[0]!]),
)

/** Settings whose value a refusal names but never shows: keys, and URLs that may hold a password. */
const SECRET_SETTINGS: ReadonlySet<string> = new Set([
  'adminKey',
  'masterKey',
  'stripeSecretKey',
  'stripeWebhookSecret',
  'databaseUrl',
  'redisUrl',
])

/**
 * A setting as a refusal names it: where its value came from first (the flag, or the variable), and
 * the value as given, quoted, unless it is a secret: `RWA_PORT (--port) is "eighty"`.
 */
function settingAtFault(field: keyof ServerConfig, given: unknown, fromFlag: boolean): string {
  const env = ENV_NAMES[field]
  const flag = FLAG_OF_FIELD.get(field)
  const name = flag === undefined ? env : fromFlag ? `${flag} (${env})` : `${env} (${flag})`
  return given === undefined || SECRET_SETTINGS.has(field)
    ? name
    : `${name} is ${JSON.stringify(String(given))}`
}

/**
 * Resolves the configuration from flags and the environment. Throws an Error naming the variable or
 * flag at fault, so the server fails fast at start instead of at the first request.
 */
export function loadServerConfig(
  flags: Partial<Record<keyof ServerConfig, string | number | undefined>>,
  env = process.env,
): ServerConfig {
  const raw: Record<string, unknown> = {}
  for (const [field, envName] of Object.entries(ENV_NAMES)) {
    const value = flags[field as keyof ServerConfig] ?? (env[envName] === '' ? undefined : env[envName])
    if (value !== undefined) raw[field] = value
  }
  const result = serverConfigSchema
    .superRefine((config, check) => {
      if (
        config.metricsPort !== undefined &&
        config.metricsPort !== 0 &&
        config.metricsPort === config.port
      ) {
        check.addIssue({ code: 'custom', path: ['metricsPort'], message: 'must differ from the API port' })
      }
      if (config.databaseUrl !== undefined && raw.db !== undefined) {
        check.addIssue({
          code: 'custom',
          path: ['db'],
          message:
            'names a SQLite file while RWA_DATABASE_URL (--database-url) names a PostgreSQL database: give one',
        })
      }
      if (config.masterKey !== undefined && config.masterKeyFile !== undefined) {
        check.addIssue({
          code: 'custom',
          path: ['masterKeyFile'],
          message: 'names a master key file while RWA_MASTER_KEY gives the key: give one',
        })
      }
      if (
        config.databaseUrl !== undefined &&
        config.masterKey === undefined &&
        config.masterKeyFile === undefined
      ) {
        check.addIssue({
          code: 'custom',
          path: ['masterKey'],
          message:
            'required with RWA_DATABASE_URL (or --master-key-file FILE): every signing key is stored encrypted under it, and instances sharing the database must share it (32 random bytes as base64url: openssl rand -base64 32 | tr "+/" "-_" | tr -d =)',
        })
      }
      if (config.databaseUrl !== undefined && config.redisUrl === undefined) {
        check.addIssue({
          code: 'custom',
          path: ['redisUrl'],
          message:
            'required with RWA_DATABASE_URL: instances over one PostgreSQL database share their limits and cache invalidations through Redis (redis://host:6379)',
        })
      }
      if (config.databaseUrl === undefined && config.redisUrl !== undefined) {
        check.addIssue({
          code: 'custom',
          path: ['redisUrl'],
          message:
            'is used only with RWA_DATABASE_URL (PostgreSQL); the embedded SQLite server keeps its limits in memory',
        })
      }
      if (config.paymentProvider !== 'stripe') return
      for (const field of STRIPE_REQUIRED) {
        if (config[field] === undefined) {
          check.addIssue({
            code: 'custom',
            path: [field],
            message: 'required when RWA_PAYMENT_PROVIDER=stripe',
          })
        }
      }
    })
    .safeParse(raw)
  if (!result.success) {
    const problems = result.error.issues.map((issue) => {
      const field = String(issue.path[0]) as keyof ServerConfig
      return `${settingAtFault(field, raw[field], flags[field] !== undefined)}: ${issue.message}`
    })
    throw new Error(`invalid configuration: ${problems.join('; ')}`)
  }
  return Object.freeze(result.data)
}

/** The milliseconds of a duration setting (`90s`, `30m`, `1h`, `7d`), as its schema checked it. */
export function durationMs(text: string): number {
  const unit = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[text.slice(-1) as 's' | 'm' | 'h' | 'd']
  return Number(text.slice(0, -1)) * unit
}
