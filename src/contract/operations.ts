import { z } from 'zod'
import { problemSchema } from './errors.js'

/** `GET /healthz`: the process answers. */
export const healthSchema = z.object({ status: z.literal('ok') })

/** One thing `/readyz` checks: the database, the migrations, Redis when configured, or the shutdown. */
export const readinessCheckSchema = z.object({
  name: z.string().describe('`database`, `migrations`, `redis` or `shutdown`'),
  ready: z.boolean(),
  detail: z.string().optional().describe('Why the check is not ready'),
})

/** `GET /readyz` when the instance may take traffic. */
export const readinessSchema = z.object({
  status: z.literal('ready'),
  checks: z.array(readinessCheckSchema),
})

/** `GET /readyz` when it may not: problem details (503 `unavailable`) naming each check that failed. */
export const notReadySchema = problemSchema.extend({ checks: z.array(readinessCheckSchema) })

export type ReadinessCheckResult = z.infer<typeof readinessCheckSchema>
export type Readiness = z.infer<typeof readinessSchema>
