import type { OpenAPIHono } from '@hono/zod-openapi'
import {
  jwksExample,
  pageExample,
  proofExample,
  requestTransferRequestExample,
  transferDetailExample,
  transferExample,
  transferSummaryExample,
} from '../../../src/contract/examples.js'
import {
  jwksSchema,
  listTransfersQuerySchema,
  listTransfersResponseSchema,
  proofParamsSchema,
  proofSchema,
  requestTransferRequestSchema,
  transferDetailSchema,
  transferParamsSchema,
  transferSchema,
} from '../../../src/contract/rwa.js'
import type { AppEnv } from '../../auth/principal.js'
import type { AppContext } from '../../context.js'
import { defineRoute, jsonBody, jsonResponse } from '../../http/openapi.js'
import { type Guard, RWA_BASE, rwaTags } from '../routing.js'
import { getProof, getTransfer, jwks, listTransfers, requestTransfer } from './service.js'

const request = defineRoute({
  method: 'post',
  path: `${RWA_BASE}/transfers`,
  operationId: 'requestTransfer',
  access: 'governance',
  tags: rwaTags,
  summary: 'Request a cross-border transfer (recorded approved or rejected, with a signed proof)',
  request: { body: jsonBody(requestTransferRequestSchema, requestTransferRequestExample) },
  responses: { 201: jsonResponse(transferSchema, 'Evaluated and recorded', transferExample) },
  refusals: [404, 409],
})
const list = defineRoute({
  method: 'get',
  path: `${RWA_BASE}/transfers`,
  operationId: 'listTransfers',
  access: 'governance',
  tags: rwaTags,
  summary: 'List transfers; filter by token_id, status, jurisdiction (source or target)',
  request: { query: listTransfersQuerySchema },
  responses: {
    200: jsonResponse(
      listTransfersResponseSchema,
      'Transfers as summaries (no checks), newest first',
      pageExample('transfers', transferSummaryExample),
    ),
  },
})
const get = defineRoute({
  method: 'get',
  path: `${RWA_BASE}/transfers/{id}`,
  operationId: 'getTransfer',
  access: 'governance',
  tags: rwaTags,
  summary: 'Transfer details with its compliance proof',
  request: { params: transferParamsSchema },
  responses: { 200: jsonResponse(transferDetailSchema, 'The transfer', transferDetailExample) },
  refusals: [404],
})
const proof = defineRoute({
  method: 'get',
  path: `${RWA_BASE}/proofs/{id}`,
  operationId: 'getProof',
  access: 'governance',
  tags: rwaTags,
  summary: 'Compliance proof by its identifier',
  request: { params: proofParamsSchema },
  responses: { 200: jsonResponse(proofSchema, 'The proof', proofExample) },
  refusals: [404],
})
const proofKeys = defineRoute({
  method: 'get',
  path: `${RWA_BASE}/.well-known/jwks.json`,
  operationId: 'getProofKeys',
  access: 'public',
  tags: rwaTags,
  summary: 'Public keys that verify compliance proofs (public)',
  responses: { 200: jsonResponse(jwksSchema, 'JWKS', jwksExample) },
})

/** The public key set that verifies proofs: no API key needed. */
export function registerProofKeysRoute(app: OpenAPIHono<AppEnv>, ctx: AppContext): void {
  app.openapi(proofKeys, async (c) => c.json(await jwks(ctx), 200))
}

/** Transfers and their compliance proofs. */
export function registerTransferRoutes(app: OpenAPIHono<AppEnv>, ctx: AppContext, guard: Guard): void {
  app.openapi({ ...request, ...guard }, async (c) =>
    c.json(await requestTransfer(ctx, c.get('principal'), c.req.valid('json')), 201),
  )
  app.openapi({ ...list, ...guard }, async (c) =>
    c.json(await listTransfers(ctx, c.get('principal'), c.req.valid('query')), 200),
  )
  app.openapi({ ...get, ...guard }, async (c) =>
    c.json(await getTransfer(ctx, c.get('principal'), c.req.valid('param').id), 200),
  )
  app.openapi({ ...proof, ...guard }, async (c) =>
    c.json(await getProof(ctx, c.get('principal'), c.req.valid('param').id), 200),
  )
}
