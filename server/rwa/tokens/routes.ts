import type { OpenAPIHono } from '@hono/zod-openapi'
import {
  holdingExample,
  newTokenExample,
  pageExample,
  setTokenRulesRequestExample,
  tokenExample,
  tokenizeRequestExample,
} from '../../../src/contract/examples.js'
import {
  listHoldingsQuerySchema,
  listHoldingsResponseSchema,
  listTokensQuerySchema,
  listTokensResponseSchema,
  setTokenRulesRequestSchema,
  tokenDetailSchema,
  tokenHistoryQuerySchema,
  tokenHistoryResponseSchema,
  tokenizeRequestSchema,
  tokenParamsSchema,
} from '../../../src/contract/rwa.js'
import type { AppEnv } from '../../auth/principal.js'
import type { AppContext } from '../../context.js'
import { defineRoute, jsonBody, jsonResponse } from '../../http/openapi.js'
import { type Guard, RWA_BASE, rwaTags } from '../routing.js'
import { getToken, listHoldings, listTokens, setRules, tokenHistory, tokenize } from './service.js'

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
      tokens: [
        (({ governance_history: _h, governance_history_total: _t, frozen_holders: _f, ...token }) => token)(
          tokenExample,
        ),
      ],
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
  summary: 'Token details with its rules, frozen holders and latest 100 governance events',
  request: { params: tokenParamsSchema },
  responses: { 200: jsonResponse(tokenDetailSchema, 'The token', tokenExample) },
  refusals: [404],
})

const history = defineRoute({
  method: 'get',
  path: `${RWA_BASE}/tokens/{id}/history`,
  operationId: 'getTokenHistory',
  access: 'governance',
  tags: rwaTags,
  summary: "Every event of a token's governance history, oldest first, a page at a time",
  request: { params: tokenParamsSchema, query: tokenHistoryQuerySchema },
  responses: {
    200: jsonResponse(tokenHistoryResponseSchema, 'Events, oldest first', {
      governance_history: tokenExample.governance_history,
      total: tokenExample.governance_history.length,
      next_cursor: null,
    }),
  },
  refusals: [404],
})
const holdings = defineRoute({
  method: 'get',
  path: `${RWA_BASE}/tokens/{id}/holdings`,
  operationId: 'listHoldings',
  access: 'governance',
  tags: rwaTags,
  summary: "A token's holdings with their frozen units; filter by holder_did, jurisdiction",
  request: { params: tokenParamsSchema, query: listHoldingsQuerySchema },
  responses: {
    200: jsonResponse(
      listHoldingsResponseSchema,
      'Holdings, by holder then jurisdiction',
      pageExample('holdings', holdingExample),
    ),
  },
  refusals: [404],
})
const rules = defineRoute({
  method: 'put',
  path: `${RWA_BASE}/tokens/{id}/rules`,
  operationId: 'setTokenRules',
  access: 'governance',
  tags: rwaTags,
  summary: "Replace a token's transfer rules (null or absent clears a rule)",
  request: {
    params: tokenParamsSchema,
    body: jsonBody(setTokenRulesRequestSchema, setTokenRulesRequestExample),
  },
  responses: { 200: jsonResponse(tokenDetailSchema, 'The token with its new rules', tokenExample) },
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
  app.openapi({ ...history, ...guard }, async (c) =>
    c.json(await tokenHistory(ctx, c.get('principal'), c.req.valid('param').id, c.req.valid('query')), 200),
  )
  app.openapi({ ...holdings, ...guard }, async (c) =>
    c.json(await listHoldings(ctx, c.get('principal'), c.req.valid('param').id, c.req.valid('query')), 200),
  )
  app.openapi({ ...rules, ...guard }, async (c) =>
    c.json(await setRules(ctx, c.get('principal'), c.req.valid('param').id, c.req.valid('json')), 200),
  )
}
