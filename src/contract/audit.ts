import { z } from 'zod'
import { orgIdSchema, pageFields, pageQuery, prefixedId, timestampSchema } from './common.js'

/**
 * A `log_index`: a position in an organization's verifiable log (docs/governance.md, "The verifiable log"),
 * said of what it is.
 */
export const logIndexField = (description: string) =>
  z.number().int().nonnegative().optional().describe(description)

/*
 * The audit log (docs/accountability.md, "What is recorded"): one event per change a write made,
 * whoever made it (a key, or the server for the payment provider and its own jobs), recorded in the
 * write's own transaction.
 */

/** `<resource>.<past verb>`, the resource singular: `jurisdiction.updated`, `key.revoked`. */
export const auditActionSchema = z
  .string()
  .regex(/^[a-z_]+\.[a-z_]+$/, 'expected <resource>.<past verb>, e.g. jurisdiction.updated')
  .max(64)

export const auditActorSchema = z.union([
  z.object({ key_id: z.string(), roles: z.array(z.string()) }).describe('An API key and its roles'),
  z
    .object({ system: z.enum(['payment_provider', 'trial_expiry', 'bootstrap', 'issuer_refresh']) })
    .describe(
      "The server, for the payment provider or one of its own jobs (`bootstrap`: the first start's admin key; `issuer_refresh`: a trusted issuer's keys as its DID document now lists them)",
    ),
])

export const auditEventSchema = z.object({
  event_id: z.string(),
  org_id: orgIdSchema,
  at: timestampSchema,
  actor: auditActorSchema,
  request_id: z.string().nullable().describe('The request that made the change; null for a job'),
  action: z.string(),
  target: z.object({ type: z.string(), id: z.string() }),
  changes: z
    .object({ before: z.unknown(), after: z.unknown() })
    .optional()
    .describe('What the change set (`after`) and, for an update, what it replaced (`before`)'),
  log_index: logIndexField(
    "The event's position in its organization's verifiable log (GET /console/audit/log/entries): the leaf is this record's RFC 8785 canonical JSON without `log_index`",
  ),
})

export const listAuditQuerySchema = z.strictObject({
  ...pageQuery('aud'),
  org_id: orgIdSchema
    .optional()
    .describe("The organization whose log to read (admin key); defaults to the caller's own"),
  action: auditActionSchema.optional(),
  target_id: z.string().min(1).max(128).optional().describe('The id of the record changed'),
  actor_key_id: prefixedId('key').optional().describe('The key that made the change'),
  since: timestampSchema.optional().describe('Events at or after this time'),
  until: timestampSchema.optional().describe('Events before this time'),
})

export const listAuditResponseSchema = z.object({ events: z.array(auditEventSchema), ...pageFields })

export type AuditEvent = z.infer<typeof auditEventSchema>
export type ListAuditQuery = z.infer<typeof listAuditQuerySchema>
export type ListAuditResponse = z.infer<typeof listAuditResponseSchema>

export const auditEventExample: AuditEvent = {
  event_id: 'aud_01M8420DESXZV8X28W2ZQWTKA9',
  org_id: 'acme',
  at: '2026-11-22T10:20:00.000Z',
  actor: { key_id: 'key_01M80QDRFAQSS9ZK6YPFRFRQA8', roles: ['owner'] },
  request_id: '3f0c7a5e-8a43-4e55-9a57-1f0b8c2d9e11',
  action: 'jurisdiction.updated',
  target: { type: 'jurisdiction', id: 'US' },
  changes: {
    before: { transfer_requirements: ['kyc', 'aml'] },
    after: { transfer_requirements: ['kyc', 'aml', 'title_verification'] },
  },
  log_index: 41,
}
