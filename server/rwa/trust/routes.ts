import type { OpenAPIHono } from '@hono/zod-openapi'
import {
  establishTrustRequestExample,
  pageExample,
  revokeTrustResponseExample,
  trustPairExample,
  trustRelationExample,
} from '../../../src/contract/examples.js'
import {
  establishTrustRequestSchema,
  listTrustQuerySchema,
  listTrustResponseSchema,
  revokeTrustResponseSchema,
  trustPairQuerySchema,
  trustPairSchema,
  trustRelationSchema,
} from '../../../src/contract/rwa.js'
import type { AppEnv } from '../../auth/principal.js'
import type { AppContext } from '../../context.js'
import { validationError } from '../../errors.js'
import { defineRoute, jsonBody, jsonResponse, optionalJsonBody } from '../../http/openapi.js'
import { type Guard, RWA_BASE, rwaTags } from '../routing.js'
import { establishTrust, listTrust, revokeTrust } from './service.js'

const establish = defineRoute({
  method: 'post',
  path: `${RWA_BASE}/jurisdictions/trust`,
  operationId: 'establishTrust',
  access: 'governance',
  tags: rwaTags,
  summary: 'Establish trust between two jurisdictions',
  request: { body: jsonBody(establishTrustRequestSchema, establishTrustRequestExample) },
  responses: { 201: jsonResponse(trustRelationSchema, 'Established', trustRelationExample) },
  refusals: [404, 409],
})
const revoke = defineRoute({
  method: 'delete',
  path: `${RWA_BASE}/jurisdictions/trust`,
  operationId: 'revokeTrust',
  access: 'governance',
  tags: rwaTags,
  summary: 'Revoke trust between two jurisdictions (pair in the body or the query)',
  request: {
    query: trustPairQuerySchema,
    body: optionalJsonBody(trustPairSchema, trustPairExample),
  },
  responses: { 200: jsonResponse(revokeTrustResponseSchema, 'Revoked', revokeTrustResponseExample) },
  refusals: [404],
})
const list = defineRoute({
  method: 'get',
  path: `${RWA_BASE}/jurisdictions/trust`,
  operationId: 'listTrust',
  access: 'governance',
  tags: rwaTags,
  summary: 'List trust relations',
  request: { query: listTrustQuerySchema },
  responses: {
    200: jsonResponse(
      listTrustResponseSchema,
      'Trust relations, newest first',
      pageExample('trust_relations', trustRelationExample),
    ),
  },
})

/** The trust endpoints (the 22nd governance endpoint is their list). */
export function registerTrustRoutes(app: OpenAPIHono<AppEnv>, ctx: AppContext, guard: Guard): void {
  app.openapi({ ...list, ...guard }, async (c) =>
    c.json(await listTrust(ctx, c.get('principal'), c.req.valid('query')), 200),
  )
  app.openapi({ ...establish, ...guard }, async (c) =>
    c.json(await establishTrust(ctx, c.get('principal'), c.req.valid('json')), 201),
  )
  app.openapi({ ...revoke, ...guard }, async (c) => {
    // The pair comes either whole in the JSON body or in the query string.
    const merged = { ...c.req.valid('query'), ...((c.req.valid('json') as object | undefined) ?? {}) }
    const pair = trustPairSchema.safeParse(merged)
    if (!pair.success) throw validationError(pair.error, 'request')
    return c.json(await revokeTrust(ctx, c.get('principal'), pair.data), 200)
  })
}
