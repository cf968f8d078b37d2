import { createRoute, type OpenAPIHono } from '@hono/zod-openapi'
import {
  attestationParamsSchema,
  attestationSchema,
  listAttestationsQuerySchema,
  listAttestationsResponseSchema,
  submitAttestationRequestSchema,
} from '../../../src/contract/rwa.js'
import type { AppEnv } from '../../auth/principal.js'
import type { AppContext } from '../../context.js'
import { jsonBody, jsonResponse, problemResponses } from '../../http/openapi.js'
import { type Guard, guardedFailures, RWA_BASE, rwaTags } from '../routing.js'
import { getAttestation, listAttestations, submitAttestation } from './service.js'

const list = createRoute({
  method: 'get',
  path: `${RWA_BASE}/attestations`,
  tags: rwaTags,
  summary: 'List attestations; filter by jurisdiction, credential_id, subject_did, type',
  request: { query: listAttestationsQuerySchema },
  responses: {
    200: jsonResponse(listAttestationsResponseSchema, 'Attestations, newest first'),
    ...guardedFailures,
  },
})
const submit = createRoute({
  method: 'post',
  path: `${RWA_BASE}/attestations`,
  tags: rwaTags,
  summary: 'Submit a regulatory attestation',
  request: { body: jsonBody(submitAttestationRequestSchema) },
  responses: {
    201: jsonResponse(attestationSchema, 'Recorded'),
    ...guardedFailures,
    ...problemResponses(404, 422),
  },
})
const get = createRoute({
  method: 'get',
  path: `${RWA_BASE}/attestations/{id}`,
  tags: rwaTags,
  summary: 'Get attestation details',
  request: { params: attestationParamsSchema },
  responses: {
    200: jsonResponse(attestationSchema, 'The attestation'),
    ...guardedFailures,
    ...problemResponses(404),
  },
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
