import { z } from 'zod'
import { apiKeySecretSchema } from '../src/contract/billing.js'

/** Server settings: flags win over RWA_* variables, which win over the defaults. */
export const serverConfigSchema = z.object({
  host: z.string().min(1).default('127.0.0.1'),
  port: z.coerce.number().int().min(0).max(65535).default(4600),
  db: z.string().min(1).default('rwa.db'),
  adminKey: apiKeySecretSchema.optional(),
  paymentProvider: z.enum(['local']).default('local'),
})

export type ServerConfig = z.infer<typeof serverConfigSchema>

const ENV_NAMES: Record<keyof ServerConfig, string> = {
  host: 'RWA_HOST',
  port: 'RWA_PORT',
  db: 'RWA_DB',
  adminKey: 'RWA_ADMIN_KEY',
  paymentProvider: 'RWA_PAYMENT_PROVIDER',
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
  const result = serverConfigSchema.safeParse(raw)
  if (!result.success) {
    const problems = result.error.issues.map((issue) => {
      const field = String(issue.path[0]) as keyof ServerConfig
      return field === 'adminKey'
        ? `RWA_ADMIN_KEY: ${issue.message}`
        : `${ENV_NAMES[field]} (--${field}): ${issue.message}`
    })
    throw new Error(`invalid configuration: ${problems.join('; ')}`)
  }
  return Object.freeze(result.data)
}
