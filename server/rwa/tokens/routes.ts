import type { OpenAPIHono } from '@hono/zod-openapi'
import { newTokenExample, tokenExample, tokenizeRequestExample } from '../../../src/contract/examples.js'
import {
  listTokensQuerySchema,
  listTokensResponseSchema,
  tokenDetailSchema,
  tokenizeRequestSchema,
  tokenParamsSchema,
} from '../../../src/contract/rwa.js'
import type { AppEnv } from '../../auth/principal.js'
import type { AppContext } from '../../context.js'
import { defineRoute, jsonBody, jsonResponse } from '../../http/openapi.js'
import { type Guard, RWA_BASE, rwaTags } from '../routing.js'
import { getToken, listTokens, tokenize } from './service.js'

const create = defineRoute({
  method: 'post',
  path: `${RWA_BASE}/tokenize`,
  operationId: 'tokenize',
  access: 'governance',
  tags: rwaTags,
  summary: 'Tokenize a credentialed asset',
  request: { body: jsonBody(tokenizeRequestSchema, tokenizeRequestExample) },
  responses: { 201: jsonResponse(tokenDetailSchema, 'Tokenized', newTokenExample) },
  refusals: [404, 409],
})
const list = defineRoute({
  method: 'get',
  path: `${RWA_BASE}/tokens`,
  operationId: 'listTokens',
  access: 'governance',
  tags: rwaTags,
  summary: 'List tokenized assets; filter by jurisdiction, owner_did, status',
  request: { query: listTokensQuerySchema },
  responses: {
    200: jsonResponse(listTokensResponseSchema, 'Tokens, newest first', {
      tokens: [(({ governance_history: _, ...token }) => token)(tokenExample)],
      total: 1,
      next_cursor: null,
    }),
  },
})
const get = defineRoute({
  method: 'get',
  path: `${RWA_BASE}/tokens/{id}`,
  operationId: 'getToken',
  access: 'governance',
  tags: rwaTags,
  summary: 'Token details with governance history',
  request: { params: tokenParamsSchema },
  responses: { 200: jsonResponse(tokenDetailSchema, 'The token', tokenExample) },
  refusals: [404],
})

export function registerTokenRoutes(app: OpenAPIHono<AppEnv>, ctx: AppContext, guard: Guard): void {
  app.openapi({ ...create, ...guard }, async (c) =>
    c.json(await tokenize(ctx, c.get('principal'), c.req.valid('json')), 201),
  )
  app.openapi({ ...list, ...guard }, async (c) =>
    c.json(await listTokens(ctx, c.get('principal'), c.req.valid('query')), 200),
  )
  app.openapi({ ...get, ...guard }, async (c) =>
    c.json(await getToken(ctx, c.get('principal'), c.req.valid('param').id), 200),
  )
}
