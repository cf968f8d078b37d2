import type { OpenAPIHono } from '@hono/zod-openapi'
import {
  canTransferResponseExample,
  forcedTransferExample,
  forcedTransferRequestExample,
  recoverRequestExample,
  recoveryResultExample,
} from '../../../src/contract/examples.js'
import {
  canTransferQuerySchema,
  canTransferResponseSchema,
  forcedTransferRequestSchema,
  recoverRequestSchema,
  recoveryResultSchema,
  tokenParamsSchema,
  transferSchema,
} from '../../../src/contract/rwa.js'
import type { AppEnv } from '../../auth/principal.js'
import type { AppContext } from '../../context.js'
import { defineRoute, jsonBody, jsonResponse } from '../../http/openapi.js'
import { type Guard, RWA_BASE, rwaTags } from '../routing.js'
import { forcedTransfer, recover } from './agent-transfers.js'
import { canTransfer } from './service.js'

const forced = defineRoute({
  method: 'post',
  path: `${RWA_BASE}/tokens/{id}/forced-transfer`,
  operationId: 'forcedTransfer',
  access: 'governance',
  tags: rwaTags,
  summary:
    "An agent's transfer by authority: bypasses requirements, rules, freezes and pause; the recipient needs kyc",
  request: {
    params: tokenParamsSchema,
    body: jsonBody(forcedTransferRequestSchema, forcedTransferRequestExample),
  },
  responses: {
    201: jsonResponse(
      transferSchema,
      'Recorded with status forced and a signed proof',
      forcedTransferExample,
    ),
  },
  refusals: [404, 409, 422],
})
const recovery = defineRoute({
  method: 'post',
  path: `${RWA_BASE}/tokens/{id}/recover`,
  operationId: 'recoverIdentity',
  access: 'governance',
  tags: rwaTags,
  summary: "Move a lost identity's holdings and freezes to a new DID that holds kyc where they are",
  request: { params: tokenParamsSchema, body: jsonBody(recoverRequestSchema, recoverRequestExample) },
  responses: {
    200: jsonResponse(recoveryResultSchema, 'Recovered, with a signed proof', recoveryResultExample),
  },
  refusals: [404, 409, 422],
})
const check = defineRoute({
  method: 'get',
  path: `${RWA_BASE}/tokens/{id}/can-transfer`,
  operationId: 'canTransfer',
  access: 'governance',
  tags: rwaTags,
  summary: 'Would this transfer be approved now? The evaluation, recording nothing',
  request: { params: tokenParamsSchema, query: canTransferQuerySchema },
  responses: {
    200: jsonResponse(canTransferResponseSchema, 'The decision and every check', canTransferResponseExample),
  },
  refusals: [404],
})

/** The agent's operations that move units, and the question whether a transfer would pass. */
export function registerTransferAgentRoutes(app: OpenAPIHono<AppEnv>, ctx: AppContext, guard: Guard): void {
  app.openapi({ ...forced, ...guard }, async (c) =>
    c.json(await forcedTransfer(ctx, c.get('principal'), c.req.valid('param').id, c.req.valid('json')), 201),
  )
  app.openapi({ ...recovery, ...guard }, async (c) =>
    c.json(await recover(ctx, c.get('principal'), c.req.valid('param').id, c.req.valid('json')), 200),
  )
  app.openapi({ ...check, ...guard }, async (c) =>
    c.json(await canTransfer(ctx, c.get('principal'), c.req.valid('param').id, c.req.valid('query')), 200),
  )
}
