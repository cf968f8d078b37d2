import { createRoute, type OpenAPIHono } from '@hono/zod-openapi'
import {
  credentialParamsSchema,
  credentialSchema,
  issueCredentialRequestSchema,
  listCredentialsQuerySchema,
  listCredentialsResponseSchema,
  revokeCredentialRequestSchema,
} from '../../../src/contract/rwa.js'
import type { AppEnv } from '../../auth/principal.js'
import type { AppContext } from '../../context.js'
import { jsonBody, jsonResponse, problemResponses } from '../../http/openapi.js'
import { type Guard, guardedFailures, RWA_BASE, rwaTags } from '../routing.js'
import { getCredential, issueCredential, listCredentials, revokeCredential } from './service.js'

const list = createRoute({
  method: 'get',
  path: `${RWA_BASE}/credentials`,
  tags: rwaTags,
  summary: 'List credentials; filter by jurisdiction, owner_did, status',
  request: { query: listCredentialsQuerySchema },
  responses: {
    200: jsonResponse(listCredentialsResponseSchema, 'Credentials, newest first'),
    ...guardedFailures,
  },
})
const issue = createRoute({
  method: 'post',
  path: `${RWA_BASE}/credentials`,
  tags: rwaTags,
  summary: 'Issue a property credential (a VC-JWT signed by the jurisdiction)',
  request: { body: jsonBody(issueCredentialRequestSchema) },
  responses: {
    201: jsonResponse(credentialSchema, 'Issued'),
    ...guardedFailures,
    ...problemResponses(404, 422),
  },
})
const get = createRoute({
  method: 'get',
  path: `${RWA_BASE}/credentials/{id}`,
  tags: rwaTags,
  summary: 'Get credential details',
  request: { params: credentialParamsSchema },
  responses: {
    200: jsonResponse(credentialSchema, 'The credential'),
    ...guardedFailures,
    ...problemResponses(404),
  },
})
const revoke = createRoute({
  method: 'post',
  path: `${RWA_BASE}/credentials/{id}/revoke`,
  tags: rwaTags,
  summary: 'Revoke a credential (permanent; freezes its token)',
  request: {
    params: credentialParamsSchema,
    body: { content: { 'application/json': { schema: revokeCredentialRequestSchema } }, required: false },
  },
  responses: {
    200: jsonResponse(credentialSchema, 'Revoked'),
    ...guardedFailures,
    ...problemResponses(404, 409),
  },
})

export function registerCredentialRoutes(app: OpenAPIHono<AppEnv>, ctx: AppContext, guard: Guard): void {
  app.openapi({ ...list, ...guard }, async (c) =>
    c.json(await listCredentials(ctx, c.get('principal'), c.req.valid('query')), 200),
  )
  app.openapi({ ...issue, ...guard }, async (c) =>
    c.json(await issueCredential(ctx, c.get('principal'), c.req.valid('json')), 201),
  )
  app.openapi({ ...get, ...guard }, async (c) =>
    c.json(await getCredential(ctx, c.get('principal'), c.req.valid('param').id), 200),
  )
  app.openapi({ ...revoke, ...guard }, async (c) =>
    c.json(
      await revokeCredential(
        ctx,
        c.get('principal'),
        c.req.valid('param').id,
        // A body sent with a non-JSON content type is not parsed: treat it as no body.
        (c.req.valid('json') as { reason?: string } | undefined) ?? {},
      ),
      200,
    ),
  )
}
