import { createRoute, type OpenAPIHono } from '@hono/zod-openapi'
import type { MiddlewareHandler } from 'hono'
import {
  createKeyRequestSchema,
  createKeyResponseSchema,
  keyIdParamsSchema,
  listKeysQuerySchema,
  listKeysResponseSchema,
  revokeKeyResponseSchema,
} from '../../../src/contract/billing.js'
import type { AppEnv } from '../../auth/principal.js'
import type { AppContext } from '../../context.js'
import { jsonBody, jsonResponse, problemResponses } from '../../http/openapi.js'
import { billingFailures, billingTags } from '../routing.js'
import { createKey, listKeys, revokeKey } from './service.js'

const create = createRoute({
  method: 'post',
  path: '/console/billing/keys',
  tags: billingTags,
  summary: 'Create an API key',
  request: { body: jsonBody(createKeyRequestSchema) },
  responses: {
    201: jsonResponse(createKeyResponseSchema, 'The new key; the raw key is shown only here'),
    ...billingFailures,
  },
})
const list = createRoute({
  method: 'get',
  path: '/console/billing/keys',
  tags: billingTags,
  summary: 'List the keys of an organization (masked)',
  request: { query: listKeysQuerySchema },
  responses: {
    200: jsonResponse(listKeysResponseSchema, 'Keys, newest first'),
    ...billingFailures,
    ...problemResponses(404),
  },
})
const revoke = createRoute({
  method: 'delete',
  path: '/console/billing/keys/{key_id}',
  tags: billingTags,
  summary: 'Revoke a key (permanent)',
  request: { params: keyIdParamsSchema },
  responses: {
    200: jsonResponse(revokeKeyResponseSchema, 'Revoked'),
    ...billingFailures,
    ...problemResponses(404, 409),
  },
})

export function registerKeyRoutes(
  app: OpenAPIHono<AppEnv>,
  ctx: AppContext,
  auth: MiddlewareHandler<AppEnv>,
): void {
  app.openapi({ ...create, middleware: [auth] }, async (c) =>
    c.json(await createKey(ctx, c.get('principal'), c.req.valid('json')), 201),
  )
  app.openapi({ ...list, middleware: [auth] }, async (c) =>
    c.json(await listKeys(ctx, c.get('principal'), c.req.valid('query').org_id), 200),
  )
  app.openapi({ ...revoke, middleware: [auth] }, async (c) =>
    c.json(await revokeKey(ctx, c.get('principal'), c.req.valid('param').key_id), 200),
  )
}
