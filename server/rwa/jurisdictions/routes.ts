import type { OpenAPIHono } from '@hono/zod-openapi'
import {
  jurisdictionExample,
  pageExample,
  registerJurisdictionRequestExample,
  updateJurisdictionRequestExample,
} from '../../../src/contract/examples.js'
import {
  jurisdictionParamsSchema,
  jurisdictionSchema,
  listJurisdictionsQuerySchema,
  listJurisdictionsResponseSchema,
  registerJurisdictionRequestSchema,
  removeJurisdictionResponseSchema,
  updateJurisdictionRequestSchema,
} from '../../../src/contract/rwa.js'
import type { AppEnv } from '../../auth/principal.js'
import type { AppContext } from '../../context.js'
import { defineRoute, jsonBody, jsonResponse } from '../../http/openapi.js'
import { type Guard, RWA_BASE, rwaTags } from '../routing.js'
import {
  getJurisdiction,
  listJurisdictions,
  registerJurisdiction,
  removeJurisdiction,
  updateJurisdiction,
} from './service.js'

const list = defineRoute({
  method: 'get',
  path: `${RWA_BASE}/jurisdictions`,
  operationId: 'listJurisdictions',
  access: 'governance',
  tags: rwaTags,
  summary: 'List registered jurisdictions',
  request: { query: listJurisdictionsQuerySchema },
  responses: {
    200: jsonResponse(
      listJurisdictionsResponseSchema,
      'Jurisdictions, newest first',
      pageExample('jurisdictions', jurisdictionExample),
    ),
  },
})
const register = defineRoute({
  method: 'post',
  path: `${RWA_BASE}/jurisdictions`,
  operationId: 'registerJurisdiction',
  access: 'governance',
  tags: rwaTags,
  summary: 'Register a jurisdiction (the service generates its Ed25519 key and issuer_did)',
  request: { body: jsonBody(registerJurisdictionRequestSchema, registerJurisdictionRequestExample) },
  responses: { 201: jsonResponse(jurisdictionSchema, 'Registered', jurisdictionExample) },
  refusals: [409],
})
const get = defineRoute({
  method: 'get',
  path: `${RWA_BASE}/jurisdictions/{id}`,
  operationId: 'getJurisdiction',
  access: 'governance',
  tags: rwaTags,
  summary: 'Get jurisdiction details',
  request: { params: jurisdictionParamsSchema },
  responses: { 200: jsonResponse(jurisdictionSchema, 'The jurisdiction', jurisdictionExample) },
  refusals: [404],
})
const update = defineRoute({
  method: 'put',
  path: `${RWA_BASE}/jurisdictions/{id}`,
  operationId: 'updateJurisdiction',
  access: 'governance',
  tags: rwaTags,
  summary: 'Update jurisdiction configuration (replaces the mutable fields)',
  request: {
    params: jurisdictionParamsSchema,
    body: jsonBody(updateJurisdictionRequestSchema, updateJurisdictionRequestExample),
  },
  responses: {
    200: jsonResponse(jurisdictionSchema, 'Updated', {
      ...jurisdictionExample,
      ...updateJurisdictionRequestExample,
      updated_at: '2026-11-22T10:20:00.000Z',
    }),
  },
  refusals: [404],
})
const remove = defineRoute({
  method: 'delete',
  path: `${RWA_BASE}/jurisdictions/{id}`,
  operationId: 'removeJurisdiction',
  access: 'governance',
  tags: rwaTags,
  summary: 'Remove a jurisdiction nothing refers to',
  request: { params: jurisdictionParamsSchema },
  responses: {
    200: jsonResponse(removeJurisdictionResponseSchema, 'Removed', {
      status: 'removed',
      jurisdiction_id: 'US',
    }),
  },
  refusals: [404, 409],
})

/** The jurisdiction endpoints. Registered after the trust routes, whose paths `{id}` would otherwise take. */
export function registerJurisdictionRoutes(app: OpenAPIHono<AppEnv>, ctx: AppContext, guard: Guard): void {
  app.openapi({ ...list, ...guard }, async (c) =>
    c.json(await listJurisdictions(ctx, c.get('principal'), c.req.valid('query')), 200),
  )
  app.openapi({ ...register, ...guard }, async (c) =>
    c.json(await registerJurisdiction(ctx, c.get('principal'), c.req.valid('json')), 201),
  )
  app.openapi({ ...get, ...guard }, async (c) =>
    c.json(await getJurisdiction(ctx, c.get('principal'), c.req.valid('param').id), 200),
  )
  app.openapi({ ...update, ...guard }, async (c) =>
    c.json(
      await updateJurisdiction(ctx, c.get('principal'), c.req.valid('param').id, c.req.valid('json')),
      200,
    ),
  )
  app.openapi({ ...remove, ...guard }, async (c) =>
    c.json(await removeJurisdiction(ctx, c.get('principal'), c.req.valid('param').id), 200),
  )
}
