import { APPROVABLE, type ApprovableOperation } from '../../../src/contract/approvals.js'
import type { OperationSpec } from '../../../src/contract/operation.js'
import { ROUTES } from '../../../src/contract/routes.js'
import type { Handler, SomeHandlers } from '../../pipeline/handler.js'
import { problemResponse } from '../../platform/http/error-handler.js'
import { approve, getApproval, getPolicy, listApprovals, reject, setPolicy } from './service.js'

/** The operationIds a policy may cover. */
export type ApprovableOperationId = (typeof APPROVABLE)[ApprovableOperation]['operationId']

/**
 * Four eyes. Approving runs the approved operation through its own handler (`handlerOf`, from the
 * binding's table in server/routes.ts), so it is the same code with the same rules as a direct call.
 */
export const approvalHandlers = (handlerOf: (operationId: ApprovableOperationId) => Handler<OperationSpec>) =>
  ({
    getApprovalPolicy: (ctx, { principal }) => getPolicy(ctx, principal),
    setApprovalPolicy: (ctx, { principal, body }) => setPolicy(ctx, principal, body),
    listApprovals: (ctx, { principal, query }) => listApprovals(ctx, principal, query),
    getApproval: (ctx, { principal, params }) => getApproval(ctx, principal, params.id),
    approveApproval: async (ctx, { principal, params, c }) => {
      const outcome = await approve(ctx, principal, params.id, async (name, targetId, body, approver) => {
        const operationId = APPROVABLE[name].operationId
        const operation: OperationSpec = ROUTES[operationId]
        const answer = await handlerOf(operationId)(ctx, {
          params: { id: targetId },
          query: undefined,
          body,
          principal: approver,
          c,
        } as never)
        if (answer instanceof Response) return { status: answer.status, body: await answer.clone().json() }
        return { status: operation.response.status, body: answer }
      })
      if ('refusal' in outcome) return problemResponse(c, outcome.refusal)
      return c.json(outcome.body as object, outcome.status as 200 | 201)
    },
    rejectApproval: (ctx, { principal, params, body }) => reject(ctx, principal, params.id, body),
  }) satisfies SomeHandlers
