import type { OpenAPIHono } from '@hono/zod-openapi'
import {
  attestationExample,
  pageExample,
  submitAttestationRequestExample,
} from '../../../src/contract/examples.js'
import {
  attestationParamsSchema,
  attestationSchema,
  listAttestationsQuerySchema,
  listAttestationsResponseSchema,
  submitAttestationRequestSchema,
} from '../../../src/contract/rwa.js'
import type { AppEnv } from '../../auth/principal.js'
import type { AppContext } from '../../context.js'
import { defineRoute, jsonBody, jsonResponse } from '../../http/openapi.js'
import { type Guard, RWA_BASE, rwaTags } from '../routing.js'
import { getAttestation, listAttestations, submitAttestation } from './service.js'

const list = defineRoute({
  method: 'get',
  path: `${RWA_BASE}/attestations`,
  operationId: 'listAttestations',
  access: 'governance',
  tags: rwaTags,
  summary: 'List attestations; filter by jurisdiction, credential_id, subject_did, type',
  request: { query: listAttestationsQuerySchema },
  responses: {
    200: jsonResponse(
      listAttestationsResponseSchema,
      'Attestations, newest first',
      pageExample('attestations', attestationExample),
    ),
  },
})
const submit = defineRoute({
  method: 'post',
  path: `${RWA_BASE}/attestations`,
  operationId: 'submitAttestation',
  access: 'governance',
  tags: rwaTags,
  summary: 'Submit a regulatory attestation',
  request: { body: jsonBody(submitAttestationRequestSchema, submitAttestationRequestExample) },
  responses: { 201: jsonResponse(attestationSchema, 'Recorded', attestationExample) },
  refusals: [404, 422],
})
const get = defineRoute({
  method: 'get',
  path: `${RWA_BASE}/attestations/{id}`,
  operationId: 'getAttestation',
  access: 'governance',
  tags: rwaTags,
  summary: 'Get attestation details',
  request: { params: attestationParamsSchema },
  responses: { 200: jsonResponse(attestationSchema, 'The attestation', attestationExample) },
  refusals: [404],
})

export function registerAttestationRoutes(app: OpenAPIHono<AppEnv>, ctx: AppContext, guard: Guard): void {
  app.openapi({ ...list, ...guard }, async (c) =>
    c.json(await listAttestations(ctx, c.get('principal'), c.req.valid('query')), 200),
  )
  app.openapi({ ...submit, ...guard }, async (c) =>
    c.json(await submitAttestation(ctx, c.get('principal'), c.req.valid('json')), 201),
  )
  app.openapi({ ...get, ...guard }, async (c) =>
    c.json(await getAttestation(ctx, c.get('principal'), c.req.valid('param').id), 200),
  )
}
