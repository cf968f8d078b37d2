import type { OpenAPIHono } from '@hono/zod-openapi'
import type { MiddlewareHandler } from 'hono'
import {
  createKeyRequestSchema,
  createKeyResponseSchema,
  keyIdParamsSchema,
  listKeysQuerySchema,
  listKeysResponseSchema,
  revokeKeyResponseSchema,
} from '../../../src/contract/billing.js'
import {
  createKeyRequestExample,
  createKeyResponseExample,
  listKeysResponseExample,
  revokeKeyResponseExample,
} from '../../../src/contract/examples.js'
import type { AppEnv } from '../../auth/principal.js'
import type { AppContext } from '../../context.js'
import { defineRoute, jsonBody, jsonResponse } from '../../http/openapi.js'
import { billingTags } from '../routing.js'
import { createKey, listKeys, revokeKey } from './service.js'

const create = defineRoute({
  method: 'post',
  path: '/console/billing/keys',
  operationId: 'createKey',
  access: 'key',
  tags: billingTags,
  summary: 'Create an API key',
  description:
    "The first key of an organization creates it (another organization's key needs the admin key); `start_trial` starts the organization's one 14-day trial.",
  request: { body: jsonBody(createKeyRequestSchema, createKeyRequestExample) },
  responses: {
    201: jsonResponse(
      createKeyResponseSchema,
      'The new key; the raw key is shown only here',
      createKeyResponseExample,
    ),
  },
  refusals: [403],
})
const list = defineRoute({
  method: 'get',
  path: '/console/billing/keys',
  operationId: 'listKeys',
  access: 'key',
  tags: billingTags,
  summary: 'List the keys of an organization (masked)',
  request: { query: listKeysQuerySchema },
  responses: { 200: jsonResponse(listKeysResponseSchema, 'Keys, newest first', listKeysResponseExample) },
  refusals: [403, 404],
})
const revoke = defineRoute({
  method: 'delete',
  path: '/console/billing/keys/{key_id}',
  operationId: 'revokeKey',
  access: 'key',
  tags: billingTags,
  summary: 'Revoke a key (permanent)',
  request: { params: keyIdParamsSchema },
  responses: { 200: jsonResponse(revokeKeyResponseSchema, 'Revoked', revokeKeyResponseExample) },
  refusals: [404, 409],
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
