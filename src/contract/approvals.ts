import { z } from 'zod'
import { pageFields, pageQuery, prefixedId, timestampSchema } from './common.js'
import { forcedTransferRequestExample } from './examples.js'

/*
 * Four eyes (docs/accountability.md, "Four eyes"): an owner's policy names the operations that need a second
 * key. Such a call answers 202 with a pending approval and does nothing; another key with `agent` (or an
 * owner) approves it, which runs the operation then, or rejects it. Pending approvals expire after 72 h.
 */

/**
 * The operations a policy may cover, by the name the policy gives them, with the operation of the route
 * table each one is (its operationId) and the kind of record its path's `{id}` names.
 */
export const APPROVABLE = {
  forced_transfer: { operationId: 'forcedTransfer', target: 'token' },
  recover: { operationId: 'recoverIdentity', target: 'token' },
  credential_revoke: { operationId: 'revokeCredential', target: 'credential' },
  unfreeze: { operationId: 'unfreezeHolder', target: 'token' },
  mint: { operationId: 'mintTokens', target: 'token' },
  burn: { operationId: 'burnTokens', target: 'token' },
} as const

export type ApprovableOperation = keyof typeof APPROVABLE

export const APPROVABLE_OPERATIONS = Object.keys(APPROVABLE) as [
  ApprovableOperation,
  ...ApprovableOperation[],
]

export const approvableOperationSchema = z.enum(APPROVABLE_OPERATIONS)

/** How long a pending approval may wait for its second key. */
export const APPROVAL_LIFETIME_HOURS = 72

/**
 * `cancelled`: its requesting key was revoked (or expired) before a decision; the principal behind it
 * can no longer stand by the request, so it never runs.
 */
export const APPROVAL_STATUSES = [
  'pending',
  'approved',
  'rejected',
  'expired',
  'failed',
  'cancelled',
] as const

export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number]

export const approvalIdSchema = prefixedId('apr')

export const approvalParamsSchema = z.object({ id: approvalIdSchema })

/** An organization's four-eyes policy. */
export const approvalPolicySchema = z.object({
  require_approval: z
    .array(approvableOperationSchema)
    .describe('The operations that need a second key; empty: none does'),
  updated_at: timestampSchema.nullable().describe('When an owner last set it; null: never set'),
  updated_by: z.string().nullable().describe('The key that last set it'),
})

export const setApprovalPolicyRequestSchema = z.strictObject({
  require_approval: z
    .array(approvableOperationSchema)
    .max(APPROVABLE_OPERATIONS.length)
    .refine((names) => new Set(names).size === names.length, 'each operation once')
    .describe(`The operations that need a second key, among ${APPROVABLE_OPERATIONS.join(', ')}`),
})

/** What the approved (or failed) operation answered: its status and body (problem details if refused). */
export const approvalOutcomeSchema = z.object({
  status: z.number().int(),
  body: z.unknown(),
})

export const approvalSchema = z.object({
  approval_id: approvalIdSchema,
  operation: approvableOperationSchema,
  target: z
    .object({ type: z.enum(['token', 'credential']), id: z.string() })
    .describe('The record of the path the operation was called on'),
  body: z.unknown().describe('The body the operation was called with, as validated; it runs with it'),
  status: z.enum(APPROVAL_STATUSES),
  requested_by: z
    .string()
    .describe(
      'The key that called the operation. Neither it nor a key rerolled from it (or it from) may approve it: one principal',
    ),
  requested_at: timestampSchema,
  expires_at: timestampSchema.describe(
    `A pending approval not decided by then reads expired (${APPROVAL_LIFETIME_HOURS} h)`,
  ),
  decided_by: z
    .string()
    .nullable()
    .describe(
      'The key that approved or rejected it; cancelled: the key whose call found its requester revoked (the revoking key, usually), null when the requesting key expired',
    ),
  decided_at: timestampSchema.nullable(),
  reason: z
    .string()
    .nullable()
    .describe("The rejecting key's reason, if it gave one; cancelled: why (the requesting key revoked)"),
  outcome: approvalOutcomeSchema
    .nullable()
    .describe("Once approved: the operation's answer (failed: its refusal, and nothing was done)"),
})

export const listApprovalsQuerySchema = z.strictObject({
  ...pageQuery('apr'),
  status: z.enum(APPROVAL_STATUSES).optional(),
})

export const listApprovalsResponseSchema = z.object({ approvals: z.array(approvalSchema), ...pageFields })

export const rejectApprovalRequestSchema = z.strictObject({
  reason: z.string().trim().min(1).max(500).optional().describe('Why, for the record'),
})

export type ApprovalPolicy = z.infer<typeof approvalPolicySchema>
export type SetApprovalPolicyRequest = z.infer<typeof setApprovalPolicyRequestSchema>
export type Approval = z.infer<typeof approvalSchema>
export type ListApprovalsQuery = z.infer<typeof listApprovalsQuerySchema>
export type ListApprovalsResponse = z.infer<typeof listApprovalsResponseSchema>
export type RejectApprovalRequest = z.infer<typeof rejectApprovalRequestSchema>

export const approvalPolicyExample: ApprovalPolicy = {
  require_approval: ['forced_transfer', 'recover'],
  updated_at: '2026-11-22T09:00:00.000Z',
  updated_by: 'key_01M80QDRFAQSS9ZK6YPFRFRQA8',
}

export const approvalExample: Approval = {
  approval_id: 'apr_01M8420DESXZV8X28W2ZQWTKA9',
  operation: 'forced_transfer',
  target: { type: 'token', id: 'tok_01M8420DESXZV8X28W2ZQWTKA9' },
  body: forcedTransferRequestExample,
  status: 'pending',
  requested_by: 'key_01M80QDRFAQSS9ZK6YPFRFRQA8',
  requested_at: '2026-11-22T10:00:00.000Z',
  expires_at: '2026-11-25T10:00:00.000Z',
  decided_by: null,
  decided_at: null,
  reason: null,
  outcome: null,
}

/**
 * What a declaration of an operation a policy may cover adds: its policy name, and the 202 answer it
 * gives when its organization's policy names it.
 */
export const approvable = <N extends ApprovableOperation>(name: N) =>
  ({
    approval: name,
    otherResponses: {
      202: {
        description:
          "The organization's four-eyes policy covers it: nothing done yet; the pending approval, which another key with `agent` approves (POST /console/rwa/approvals/{id}/approve) or rejects",
        content: { 'application/json': { schema: approvalSchema, example: approvalExample } },
      },
    },
  }) as const
