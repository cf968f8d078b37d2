import { z } from 'zod'
import {
  APPROVABLE,
  APPROVABLE_OPERATIONS,
  approvalExample,
  approvalParamsSchema,
  approvalPolicyExample,
  approvalPolicySchema,
  approvalSchema,
  listApprovalsQuerySchema,
  listApprovalsResponseSchema,
  rejectApprovalRequestSchema,
  setApprovalPolicyRequestSchema,
} from './approvals.js'
import type { Reason } from './errors.js'
import { forcedTransferExample, recoveryResultExample } from './examples.js'
import { defineOperation, jsonBody, jsonResponse, optionalJsonBody } from './operation.js'
import { RWA_BASE, rwaRoutes, rwaTags } from './rwa-routes.js'
import {
  credentialSchema,
  freezeStateSchema,
  recoveryResultSchema,
  tokenDetailSchema,
  transferSchema,
} from './rwa.js'

const governance = { access: 'governance', tags: rwaTags } as const

/** Every refusal an approved operation's own rules can give: approving answers it as its own. */
const approvedOperationRefusals: Reason[] = [
  ...new Set(APPROVABLE_OPERATIONS.flatMap((name) => rwaRoutes[APPROVABLE[name].operationId].refusals)),
]

/**
 * Four eyes (docs/accountability.md, "Four eyes"): an owner's policy, and the approvals it makes covered
 * operations wait for.
 */
export const approvalRoutes = {
  getApprovalPolicy: defineOperation({
    ...governance,
    operationId: 'getApprovalPolicy',
    method: 'get',
    path: `${RWA_BASE}/policy`,
    summary: "The organization's four-eyes policy: the operations that need a second key",
    response: jsonResponse(200, approvalPolicySchema, 'The policy', approvalPolicyExample),
  }),
  setApprovalPolicy: defineOperation({
    ...governance,
    operationId: 'setApprovalPolicy',
    audit: ['policy.updated'],
    method: 'put',
    path: `${RWA_BASE}/policy`,
    summary: 'Set which operations need a second key (owner)',
    description: `A covered call answers 202 with a pending approval and does nothing until another key with \`agent\` (or an owner) approves it. The operations: ${APPROVABLE_OPERATIONS.join(', ')}. Approvals pending when an operation leaves the policy still wait for their decision.`,
    body: jsonBody(setApprovalPolicyRequestSchema, { require_approval: ['forced_transfer', 'recover'] }),
    response: jsonResponse(200, approvalPolicySchema, 'The policy now', approvalPolicyExample),
  }),
  listApprovals: defineOperation({
    ...governance,
    operationId: 'listApprovals',
    method: 'get',
    path: `${RWA_BASE}/approvals`,
    summary: 'List approvals, newest first; filter by status',
    query: listApprovalsQuerySchema,
    response: jsonResponse(200, listApprovalsResponseSchema, 'Approvals, newest first', {
      approvals: [approvalExample],
      total: 1,
      next_cursor: null,
    }),
  }),
  getApproval: defineOperation({
    ...governance,
    operationId: 'getApproval',
    method: 'get',
    path: `${RWA_BASE}/approvals/{id}`,
    summary: 'An approval: what waits (or waited) for a second key, and what became of it',
    params: approvalParamsSchema,
    response: jsonResponse(200, approvalSchema, 'The approval', approvalExample),
    refusals: ['approval_not_found'],
  }),
  approveApproval: defineOperation({
    ...governance,
    roles: ['agent'],
    operationId: 'approveApproval',
    audit: ['approval.approved', 'approval.failed', 'approval.cancelled'],
    method: 'post',
    path: `${RWA_BASE}/approvals/{id}/approve`,
    summary: 'Approve a pending approval: runs its operation now, answering as the operation does',
    description:
      "By another principal than the one that requested it (not the requesting key, nor a key rerolled from it or it from), with `agent` (or an owner). The operation is evaluated now, on the records as they are; its answer (status and body) is this call's. If its rules refuse it now, this call answers that refusal, nothing is done and the approval reads `failed`. An approval decided already is 409 `approval_not_pending`; one pending past its `expires_at`, 409 `approval_expired`; one whose requesting key was revoked or expired since, 409 `approval_requester_revoked` (it reads `cancelled`).",
    params: approvalParamsSchema,
    response: jsonResponse(
      200,
      z.union([recoveryResultSchema, freezeStateSchema, credentialSchema]),
      "The operation's answer (recover, unfreeze, credential_revoke)",
      recoveryResultExample,
    ),
    otherResponses: {
      201: {
        description:
          "The operation's answer (forced_transfer: the transfer recorded; mint, burn: the token with its new supply)",
        content: {
          'application/json': {
            schema: z.union([transferSchema, tokenDetailSchema]),
            example: forcedTransferExample,
          },
        },
      },
    },
    refusals: [
      'approval_not_found',
      'approval_requires_another_key',
      'approval_not_pending',
      'approval_expired',
      'approval_requester_revoked',
      ...approvedOperationRefusals,
    ],
  }),
  rejectApproval: defineOperation({
    ...governance,
    roles: ['agent'],
    operationId: 'rejectApproval',
    audit: ['approval.rejected', 'approval.cancelled'],
    method: 'post',
    path: `${RWA_BASE}/approvals/{id}/reject`,
    summary: 'Reject a pending approval: its operation never runs',
    description: 'By any key with `agent` (or an owner), the one that requested it included (a withdrawal).',
    params: approvalParamsSchema,
    body: optionalJsonBody(rejectApprovalRequestSchema, { reason: 'Wrong recipient' }),
    response: jsonResponse(200, approvalSchema, 'Rejected', {
      ...approvalExample,
      status: 'rejected',
      decided_by: 'key_01M80QDRFAQSS9ZK6YPFRFRQA9',
      decided_at: '2026-11-22T11:00:00.000Z',
      reason: 'Wrong recipient',
    }),
    refusals: [
      'approval_not_found',
      'approval_not_pending',
      'approval_expired',
      'approval_requester_revoked',
    ],
  }),
} as const
