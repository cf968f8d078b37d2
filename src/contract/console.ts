import { z } from 'zod'
import { apiKeySecretSchema, keyIdSchema } from './billing.js'
import { orgIdSchema, prefixedId, timestampSchema } from './common.js'
import { SESSION_HOURS } from './console-constants.js'
import { roleSchema } from './roles.js'

export * from './console-constants.js'

/*
 * The console's own endpoints (docs/console.md, "Security model"): an API key exchanged for a session at
 * `POST /console/ui/session`, read back and ended at the same path. They are the console's, not the
 * API's: they are not operations of the route table (no client method, no CLI command, not in
 * /openapi.json), but their bodies are validated by these schemas like every other.
 */

export const sessionIdSchema = prefixedId('ses')

/** POST /console/ui/session: the key to sign in with. It is read once, and only its hash is kept. */
export const signInRequestSchema = z.strictObject({
  api_key: apiKeySecretSchema.describe('The API key to sign in with (rwa_live_...)'),
})

/**
 * A console session as the console reads it: who it acts as, until when, and the CSRF token its writes
 * carry in `X-CSRF-Token`. The session's secret itself lives only in its HttpOnly cookie.
 */
export const consoleSessionSchema = z.object({
  session_id: sessionIdSchema,
  key_id: keyIdSchema,
  org_id: orgIdSchema,
  roles: z.array(roleSchema),
  created_at: timestampSchema,
  expires_at: timestampSchema.describe(
    `${SESSION_HOURS} h after sign-in, or the key's own expires_at if sooner`,
  ),
  csrf_token: z.string().describe('Sent back in X-CSRF-Token with every write'),
})

/** DELETE /console/ui/session: the session ended. */
export const endedSessionSchema = z.object({
  session_id: sessionIdSchema,
  ended_at: timestampSchema,
})

export type SignInRequest = z.infer<typeof signInRequestSchema>
export type ConsoleSession = z.infer<typeof consoleSessionSchema>
export type EndedSession = z.infer<typeof endedSessionSchema>
