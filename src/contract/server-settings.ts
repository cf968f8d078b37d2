/*
 * Every setting of `rwa server start`: its flag (if it has one), its RWA_* variable, its default as
 * shown to people, and what it is for. Plain data without zod, so `rwa server start --help` lists it
 * without loading the server; server/platform/config.ts validates each one and takes its variable names from
 * here, and a test checks that the two agree (a new setting added there and not here fails it).
 */

/** One setting of the server. */
export interface ServerSetting {
  /** The field of the server configuration (server/platform/config.ts). */
  field: string
  /** `--port <port>`: the flag and its value name; absent for settings given only by variable. */
  flag?: string
  env: string
  /** The default as shown in help; absent when there is none (the setting is off or required). */
  default?: string
  description: string
}

export const SERVER_SETTINGS: readonly ServerSetting[] = [
  {
    field: 'host',
    flag: '--host <host>',
    env: 'RWA_HOST',
    default: '127.0.0.1',
    description: 'interface to listen on',
  },
  {
    field: 'port',
    flag: '--port <port>',
    env: 'RWA_PORT',
    default: '4600',
    description: 'port to listen on; 0 picks a free one',
  },
  {
    field: 'db',
    flag: '--db <path>',
    env: 'RWA_DB',
    default: 'rwa.db',
    description:
      'SQLite database file, created (0600) and migrated at start (WAL mode); its directory must exist',
  },
  {
    field: 'publicUrl',
    flag: '--public-url <url>',
    env: 'RWA_PUBLIC_URL',
    default: 'the listening address',
    description:
      'base URL verifiers reach the server at, written into every credential it signs (its status list URL); set it before issuing',
  },
  {
    field: 'databaseUrl',
    flag: '--database-url <url>',
    env: 'RWA_DATABASE_URL',
    description:
      'PostgreSQL database (postgres://user:password@host:5432/name, it must exist) shared by several instances, instead of --db; needs --redis-url',
  },
  {
    field: 'redisUrl',
    flag: '--redis-url <url>',
    env: 'RWA_REDIS_URL',
    description:
      'Redis (redis://host:6379 or rediss://...) holding the limits and carrying the cache invalidations of the instances; required with --database-url',
  },
  {
    field: 'redisPrefix',
    env: 'RWA_REDIS_PREFIX',
    default: 'rwa:',
    description:
      'prefix of every Redis key and channel of this deployment, so several deployments can share one Redis',
  },
  {
    field: 'adminKey',
    env: 'RWA_ADMIN_KEY',
    default: 'generated and printed once',
    description:
      'the admin key to create on a new database (rwa_live_ + 43 base64url characters), not printed; ignored, with a notice, once the database has an admin key',
  },
  {
    field: 'masterKey',
    env: 'RWA_MASTER_KEY',
    default: 'SQLite: <db>.master-key; PostgreSQL: required',
    description:
      'the key every private signing key is stored encrypted under: 32 bytes as 43 base64url characters; keep it apart from the database backups (README: Backup and restore)',
  },
  {
    field: 'masterKeyFile',
    flag: '--master-key-file <path>',
    env: 'RWA_MASTER_KEY_FILE',
    default: 'SQLite: <db>.master-key, created 0600 on first start',
    description:
      'file holding the master key (43 base64url characters), instead of RWA_MASTER_KEY; over PostgreSQL one of the two is required',
  },
  {
    field: 'paymentProvider',
    env: 'RWA_PAYMENT_PROVIDER',
    default: 'local',
    description: 'local or stripe: where subscriptions come from (docs/payments.md)',
  },
  {
    field: 'stripeSecretKey',
    env: 'RWA_STRIPE_SECRET_KEY',
    description: 'Stripe secret key sk_... or restricted key rk_... (required with stripe)',
  },
  {
    field: 'stripeWebhookSecret',
    env: 'RWA_STRIPE_WEBHOOK_SECRET',
    description: 'signing secret whsec_... of the Stripe webhook endpoint (required with stripe)',
  },
  {
    field: 'stripePricePro',
    env: 'RWA_STRIPE_PRICE_PRO',
    description: 'Stripe price id that buys pro (required with stripe)',
  },
  {
    field: 'stripePriceEnterprise',
    env: 'RWA_STRIPE_PRICE_ENTERPRISE',
    description: 'Stripe price id that buys enterprise',
  },
  {
    field: 'stripeApiBase',
    env: 'RWA_STRIPE_API_BASE',
    default: 'https://api.stripe.com',
    description: "origin of Stripe's API (tests point it at a local server)",
  },
  {
    field: 'logFormat',
    flag: '--log-format <format>',
    env: 'RWA_LOG_FORMAT',
    default: 'pretty on a terminal, else json',
    description: 'json (a JSON object per line on stderr) or pretty',
  },
  {
    field: 'logLevel',
    flag: '--log-level <level>',
    env: 'RWA_LOG_LEVEL',
    default: 'info',
    description: 'fatal, error, warn, info (a line per request), debug, trace or silent',
  },
  {
    field: 'metricsPort',
    flag: '--metrics-port <port>',
    env: 'RWA_METRICS_PORT',
    default: 'off',
    description: 'also serve GET /metrics without a key on this port',
  },
  {
    field: 'publicRateLimit',
    flag: '--public-rate-limit <rate>',
    env: 'RWA_PUBLIC_RATE_LIMIT',
    default: '20/100',
    description:
      'requests per second/burst each client address may make without a valid API key (/openapi.json, /docs, status lists, JWKS, pricing, the payment webhook, unknown paths, and requests whose key is missing, malformed, unknown, revoked or expired; not /healthz or /readyz), shared by the instances; off (or 0) disables it',
  },
  {
    field: 'trustProxy',
    flag: '--trust-proxy <hops>',
    env: 'RWA_TRUST_PROXY',
    default: '0',
    description:
      "how many proxies of yours stand in front of the server: the client address is then read that many hops back in X-Forwarded-For (0: the connection's address; never set it without such proxies, or clients choose their own address)",
  },
  {
    field: 'urlFile',
    flag: '--url-file <file>',
    env: 'RWA_URL_FILE',
    description:
      "once listening and ready, write the server's URL (and a newline) into this file, atomically; removed on a clean shutdown (for scripts: wait for it instead of reading the log)",
  },
  {
    field: 'drainSeconds',
    flag: '--drain-seconds <s>',
    env: 'RWA_DRAIN_SECONDS',
    default: '0',
    description: 'after SIGTERM, serve this long while /readyz answers 503',
  },
  {
    field: 'allowHttpWebhooks',
    flag: '--allow-http-webhooks',
    env: 'RWA_ALLOW_HTTP_WEBHOOKS',
    default: 'false',
    description: 'let webhook endpoints be http on loopback (local development; rwa sandbox sets it)',
  },
  {
    field: 'allowHttpIssuers',
    flag: '--allow-http-issuers',
    env: 'RWA_ALLOW_HTTP_ISSUERS',
    default: 'false',
    description:
      "fetch trusted issuers' did:web documents and status lists over http from loopback (local development; rwa sandbox sets it)",
  },
  {
    field: 'issuerStatusMaxAge',
    flag: '--issuer-status-max-age <duration>',
    env: 'RWA_ISSUER_STATUS_MAX_AGE',
    default: '1h',
    description:
      "how old a trusted issuer's status list may be when a transfer relies on its credential; lists are fetched again in the background at half this age, an older one when a transfer needs it, and one that cannot be fails the check",
  },
]

/**
 * The settings that have no flag, as a section of `rwa server start --help` (the flags list their own
 * variable and default): two lines each, under 80 columns.
 */
export function serverSettingsHelp(): string {
  const lines = SERVER_SETTINGS.filter((s) => !s.flag).flatMap((s) => [
    `  ${s.env}${s.default ? `  (default: ${s.default})` : ''}`,
    ...wrapWords(s.description, 72).map((line) => `      ${line}`),
  ])
  return `\nEnvironment variables (flags above; a flag wins over its variable):\n${lines.join('\n')}\n`
}

function wrapWords(text: string, width: number): string[] {
  const lines: string[] = []
  let line = ''
  for (const word of text.split(' ')) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line)
      line = word
    } else line = line === '' ? word : `${line} ${word}`
  }
  return line === '' ? lines : [...lines, line]
}
