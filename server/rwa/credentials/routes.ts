import type { OpenAPIHono } from '@hono/zod-openapi'
import {
  credentialExample,
  issueCredentialRequestExample,
  pageExample,
  revokeCredentialRequestExample,
  revokedCredentialExample,
} from '../../../src/contract/examples.js'
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
import { defineRoute, jsonBody, jsonResponse, optionalJsonBody } from '../../http/openapi.js'
import { type Guard, RWA_BASE, rwaTags } from '../routing.js'
import { getCredential, issueCredential, listCredentials, revokeCredential } from './service.js'

const list = defineRoute({
  method: 'get',
  path: `${RWA_BASE}/credentials`,
  operationId: 'listCredentials',
  access: 'governance',
  tags: rwaTags,
  summary: 'List credentials; filter by jurisdiction, owner_did, status',
  request: { query: listCredentialsQuerySchema },
  responses: {
    200: jsonResponse(
      listCredentialsResponseSchema,
      'Credentials, newest first',
      pageExample('credentials', credentialExample),
    ),
  },
})
const issue = defineRoute({
  method: 'post',
  path: `${RWA_BASE}/credentials`,
  operationId: 'issueCredential',
  access: 'governance',
  tags: rwaTags,
  summary: 'Issue a property credential (a VC-JWT signed by the jurisdiction)',
  request: { body: jsonBody(issueCredentialRequestSchema, issueCredentialRequestExample) },
  responses: { 201: jsonResponse(credentialSchema, 'Issued', credentialExample) },
  refusals: [404, 422],
})
const get = defineRoute({
  method: 'get',
  path: `${RWA_BASE}/credentials/{id}`,
  operationId: 'getCredential',
  access: 'governance',
  tags: rwaTags,
  summary: 'Get credential details',
  request: { params: credentialParamsSchema },
  responses: { 200: jsonResponse(credentialSchema, 'The credential', credentialExample) },
  refusals: [404],
})
const revoke = defineRoute({
  method: 'post',
  path: `${RWA_BASE}/credentials/{id}/revoke`,
  operationId: 'revokeCredential',
  access: 'governance',
  tags: rwaTags,
  summary: 'Revoke a credential (permanent; freezes its token)',
  request: {
    params: credentialParamsSchema,
    body: optionalJsonBody(revokeCredentialRequestSchema, revokeCredentialRequestExample),
  },
  responses: { 200: jsonResponse(credentialSchema, 'Revoked', revokedCredentialExample) },
  refusals: [404, 409],
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
