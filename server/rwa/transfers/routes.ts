import { createRoute, type OpenAPIHono } from '@hono/zod-openapi'
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
import { jsonBody, jsonResponse, problemResponses } from '../../http/openapi.js'
import { type Guard, guardedFailures, RWA_BASE, rwaTags } from '../routing.js'
import { getProof, getTransfer, jwks, listTransfers, requestTransfer } from './service.js'

const request = createRoute({
  method: 'post',
  path: `${RWA_BASE}/transfers`,
  tags: rwaTags,
  summary: 'Request a cross-border transfer (recorded approved or rejected, with a signed proof)',
  request: { body: jsonBody(requestTransferRequestSchema) },
  responses: {
    201: jsonResponse(transferSchema, 'Evaluated and recorded'),
    ...guardedFailures,
    ...problemResponses(404, 409),
  },
})
const list = createRoute({
  method: 'get',
  path: `${RWA_BASE}/transfers`,
  tags: rwaTags,
  summary: 'List transfers; filter by token_id, status, jurisdiction (source or target)',
  request: { query: listTransfersQuerySchema },
  responses: {
    200: jsonResponse(listTransfersResponseSchema, 'Transfers, newest first'),
    ...guardedFailures,
  },
})
const get = createRoute({
  method: 'get',
  path: `${RWA_BASE}/transfers/{id}`,
  tags: rwaTags,
  summary: 'Transfer details with its compliance proof',
  request: { params: transferParamsSchema },
  responses: {
    200: jsonResponse(transferDetailSchema, 'The transfer'),
    ...guardedFailures,
    ...problemResponses(404),
  },
})
const proof = createRoute({
  method: 'get',
  path: `${RWA_BASE}/proofs/{id}`,
  tags: rwaTags,
  summary: 'Compliance proof by its identifier',
  request: { params: proofParamsSchema },
  responses: { 200: jsonResponse(proofSchema, 'The proof'), ...guardedFailures, ...problemResponses(404) },
})
const proofKeys = createRoute({
  method: 'get',
  path: `${RWA_BASE}/.well-known/jwks.json`,
  tags: rwaTags,
  summary: 'Public keys that verify compliance proofs (public)',
  responses: { 200: jsonResponse(jwksSchema, 'JWKS') },
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
