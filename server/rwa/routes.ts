import { createRoute, type OpenAPIHono } from '@hono/zod-openapi'
import type { MiddlewareHandler } from 'hono'
import {
  attestationParamsSchema,
  attestationSchema,
  credentialParamsSchema,
  credentialSchema,
  establishTrustRequestSchema,
  issueCredentialRequestSchema,
  jurisdictionParamsSchema,
  jurisdictionSchema,
  jwksSchema,
  listAttestationsQuerySchema,
  listAttestationsResponseSchema,
  listCredentialsQuerySchema,
  listCredentialsResponseSchema,
  listJurisdictionsQuerySchema,
  listJurisdictionsResponseSchema,
  listTokensQuerySchema,
  listTokensResponseSchema,
  listTransfersQuerySchema,
  listTransfersResponseSchema,
  listTrustQuerySchema,
  listTrustResponseSchema,
  proofParamsSchema,
  proofSchema,
  registerJurisdictionRequestSchema,
  removeJurisdictionResponseSchema,
  requestTransferRequestSchema,
  revokeCredentialRequestSchema,
  revokeTrustResponseSchema,
  submitAttestationRequestSchema,
  tokenDetailSchema,
  tokenizeRequestSchema,
  tokenParamsSchema,
  transferDetailSchema,
  transferParamsSchema,
  transferSchema,
  trustPairQuerySchema,
  trustPairSchema,
  trustRelationSchema,
  updateJurisdictionRequestSchema,
} from '../../src/contract/rwa.js'
import type { AppEnv } from '../auth/principal.js'
import { isoTimestamp } from '../clock.js'
import type { AppContext } from '../context.js'
import { ApiError, validationError } from '../errors.js'
import { jsonBody, jsonResponse, problemResponses } from '../http/openapi.js'
import * as rwa from './service.js'

const tags = ['governance']
const failures = problemResponses(400, 401, 403, 429)
const BASE = '/console/rwa'

/**
 * Governance needs an organization on Pro or Enterprise, or in its active trial. Runs after `auth`,
 * before validation; the refusal says which way to access is still open to the organization.
 */
export function requireGovernance(ctx: AppContext): MiddlewareHandler<AppEnv> {
  return async function requireGovernancePlan(c, next) {
    const { entitlement, orgId } = c.get('principal')
    if (!entitlement.governance) {
      const org = await ctx.directory.org(orgId)
      const trial =
        org?.trialEndsAt == null
          ? 'start its 14-day trial (POST /console/billing/keys with start_trial: true) or subscribe'
          : `its trial ended at ${isoTimestamp(org.trialEndsAt)}; subscribe`
      throw new ApiError(
        'plan_required',
        `Governance endpoints need the Pro or Enterprise tier or an active trial; organization ${orgId} is on the free tier. To get access, ${trial} to Pro or Enterprise (see GET /console/billing/pricing)`,
      )
    }
    await next()
  }
}

const jurisdictionsList = createRoute({
  method: 'get',
  path: `${BASE}/jurisdictions`,
  tags,
  summary: 'List registered jurisdictions',
  request: { query: listJurisdictionsQuerySchema },
  responses: {
    200: jsonResponse(listJurisdictionsResponseSchema, 'Jurisdictions, newest first'),
    ...failures,
  },
})
const jurisdictionsRegister = createRoute({
  method: 'post',
  path: `${BASE}/jurisdictions`,
  tags,
  summary: 'Register a jurisdiction (the service generates its Ed25519 key and issuer_did)',
  request: { body: jsonBody(registerJurisdictionRequestSchema) },
  responses: {
    201: jsonResponse(jurisdictionSchema, 'Registered'),
    ...failures,
    ...problemResponses(409),
  },
})
const jurisdictionsGet = createRoute({
  method: 'get',
  path: `${BASE}/jurisdictions/{id}`,
  tags,
  summary: 'Get jurisdiction details',
  request: { params: jurisdictionParamsSchema },
  responses: {
    200: jsonResponse(jurisdictionSchema, 'The jurisdiction'),
    ...failures,
    ...problemResponses(404),
  },
})
const jurisdictionsUpdate = createRoute({
  method: 'put',
  path: `${BASE}/jurisdictions/{id}`,
  tags,
  summary: 'Update jurisdiction configuration (replaces the mutable fields)',
  request: { params: jurisdictionParamsSchema, body: jsonBody(updateJurisdictionRequestSchema) },
  responses: { 200: jsonResponse(jurisdictionSchema, 'Updated'), ...failures, ...problemResponses(404) },
})
const jurisdictionsRemove = createRoute({
  method: 'delete',
  path: `${BASE}/jurisdictions/{id}`,
  tags,
  summary: 'Remove a jurisdiction nothing refers to',
  request: { params: jurisdictionParamsSchema },
  responses: {
    200: jsonResponse(removeJurisdictionResponseSchema, 'Removed'),
    ...failures,
    ...problemResponses(404, 409),
  },
})
const trustEstablish = createRoute({
  method: 'post',
  path: `${BASE}/jurisdictions/trust`,
  tags,
  summary: 'Establish trust between two jurisdictions',
  request: { body: jsonBody(establishTrustRequestSchema) },
  responses: {
    201: jsonResponse(trustRelationSchema, 'Established'),
    ...failures,
    ...problemResponses(404, 409),
  },
})
const trustRevoke = createRoute({
  method: 'delete',
  path: `${BASE}/jurisdictions/trust`,
  tags,
  summary: 'Revoke trust between two jurisdictions (pair in the body or the query)',
  request: {
    query: trustPairQuerySchema,
    body: { content: { 'application/json': { schema: trustPairSchema } }, required: false },
  },
  responses: {
    200: jsonResponse(revokeTrustResponseSchema, 'Revoked'),
    ...failures,
    ...problemResponses(404),
  },
})
const trustList = createRoute({
  method: 'get',
  path: `${BASE}/jurisdictions/trust`,
  tags,
  summary: 'List trust relations',
  request: { query: listTrustQuerySchema },
  responses: { 200: jsonResponse(listTrustResponseSchema, 'Trust relations, newest first'), ...failures },
})
const credentialsList = createRoute({
  method: 'get',
  path: `${BASE}/credentials`,
  tags,
  summary: 'List credentials; filter by jurisdiction, owner_did, status',
  request: { query: listCredentialsQuerySchema },
  responses: { 200: jsonResponse(listCredentialsResponseSchema, 'Credentials, newest first'), ...failures },
})
const credentialsIssue = createRoute({
  method: 'post',
  path: `${BASE}/credentials`,
  tags,
  summary: 'Issue a property credential (a VC-JWT signed by the jurisdiction)',
  request: { body: jsonBody(issueCredentialRequestSchema) },
  responses: {
    201: jsonResponse(credentialSchema, 'Issued'),
    ...failures,
    ...problemResponses(404, 422),
  },
})
const credentialsGet = createRoute({
  method: 'get',
  path: `${BASE}/credentials/{id}`,
  tags,
  summary: 'Get credential details',
  request: { params: credentialParamsSchema },
  responses: { 200: jsonResponse(credentialSchema, 'The credential'), ...failures, ...problemResponses(404) },
})
const credentialsRevoke = createRoute({
  method: 'post',
  path: `${BASE}/credentials/{id}/revoke`,
  tags,
  summary: 'Revoke a credential (permanent; freezes its token)',
  request: {
    params: credentialParamsSchema,
    body: { content: { 'application/json': { schema: revokeCredentialRequestSchema } }, required: false },
  },
  responses: {
    200: jsonResponse(credentialSchema, 'Revoked'),
    ...failures,
    ...problemResponses(404, 409),
  },
})
const attestationsList = createRoute({
  method: 'get',
  path: `${BASE}/attestations`,
  tags,
  summary: 'List attestations; filter by jurisdiction, credential_id, subject_did, type',
  request: { query: listAttestationsQuerySchema },
  responses: { 200: jsonResponse(listAttestationsResponseSchema, 'Attestations, newest first'), ...failures },
})
const attestationsSubmit = createRoute({
  method: 'post',
  path: `${BASE}/attestations`,
  tags,
  summary: 'Submit a regulatory attestation',
  request: { body: jsonBody(submitAttestationRequestSchema) },
  responses: {
    201: jsonResponse(attestationSchema, 'Recorded'),
    ...failures,
    ...problemResponses(404, 422),
  },
})
const attestationsGet = createRoute({
  method: 'get',
  path: `${BASE}/attestations/{id}`,
  tags,
  summary: 'Get attestation details',
  request: { params: attestationParamsSchema },
  responses: {
    200: jsonResponse(attestationSchema, 'The attestation'),
    ...failures,
    ...problemResponses(404),
  },
})
const tokenizeRoute = createRoute({
  method: 'post',
  path: `${BASE}/tokenize`,
  tags,
  summary: 'Tokenize a credentialed asset',
  request: { body: jsonBody(tokenizeRequestSchema) },
  responses: {
    201: jsonResponse(tokenDetailSchema, 'Tokenized'),
    ...failures,
    ...problemResponses(404, 409),
  },
})
const tokensList = createRoute({
  method: 'get',
  path: `${BASE}/tokens`,
  tags,
  summary: 'List tokenized assets; filter by jurisdiction, owner_did, status',
  request: { query: listTokensQuerySchema },
  responses: { 200: jsonResponse(listTokensResponseSchema, 'Tokens, newest first'), ...failures },
})
const tokensGet = createRoute({
  method: 'get',
  path: `${BASE}/tokens/{id}`,
  tags,
  summary: 'Token details with governance history',
  request: { params: tokenParamsSchema },
  responses: { 200: jsonResponse(tokenDetailSchema, 'The token'), ...failures, ...problemResponses(404) },
})
const transfersRequest = createRoute({
  method: 'post',
  path: `${BASE}/transfers`,
  tags,
  summary: 'Request a cross-border transfer (recorded approved or rejected, with a signed proof)',
  request: { body: jsonBody(requestTransferRequestSchema) },
  responses: {
    201: jsonResponse(transferSchema, 'Evaluated and recorded'),
    ...failures,
    ...problemResponses(404, 409),
  },
})
const transfersList = createRoute({
  method: 'get',
  path: `${BASE}/transfers`,
  tags,
  summary: 'List transfers; filter by token_id, status, jurisdiction (source or target)',
  request: { query: listTransfersQuerySchema },
  responses: { 200: jsonResponse(listTransfersResponseSchema, 'Transfers, newest first'), ...failures },
})
const transfersGet = createRoute({
  method: 'get',
  path: `${BASE}/transfers/{id}`,
  tags,
  summary: 'Transfer details with its compliance proof',
  request: { params: transferParamsSchema },
  responses: {
    200: jsonResponse(transferDetailSchema, 'The transfer'),
    ...failures,
    ...problemResponses(404),
  },
})
const proofsGet = createRoute({
  method: 'get',
  path: `${BASE}/proofs/{id}`,
  tags,
  summary: 'Compliance proof by its identifier',
  request: { params: proofParamsSchema },
  responses: { 200: jsonResponse(proofSchema, 'The proof'), ...failures, ...problemResponses(404) },
})
const jwksRoute = createRoute({
  method: 'get',
  path: `${BASE}/.well-known/jwks.json`,
  tags,
  summary: 'Public keys that verify compliance proofs (public)',
  responses: { 200: jsonResponse(jwksSchema, 'JWKS') },
})

/** The 22 governance endpoints (plus the public JWKS). Trust routes come before `/jurisdictions/{id}`. */
export function registerRwaRoutes(
  app: OpenAPIHono<AppEnv>,
  ctx: AppContext,
  auth: MiddlewareHandler<AppEnv>,
): void {
  const guard = { middleware: [auth, requireGovernance(ctx)] as MiddlewareHandler<AppEnv>[] }
  const who = (c: { get(key: 'principal'): AppEnv['Variables']['principal'] }) => c.get('principal')

  app.openapi(jwksRoute, async (c) => c.json(await rwa.jwks(ctx), 200))

  app.openapi({ ...trustList, ...guard }, async (c) =>
    c.json(await rwa.listTrust(ctx, who(c), c.req.valid('query')), 200),
  )
  app.openapi({ ...trustEstablish, ...guard }, async (c) =>
    c.json(await rwa.establishTrust(ctx, who(c), c.req.valid('json')), 201),
  )
  app.openapi({ ...trustRevoke, ...guard }, async (c) => {
    // The pair comes either whole in the JSON body or in the query string.
    const merged = { ...c.req.valid('query'), ...((c.req.valid('json') as object | undefined) ?? {}) }
    const pair = trustPairSchema.safeParse(merged)
    if (!pair.success) throw validationError(pair.error, 'request')
    return c.json(await rwa.revokeTrust(ctx, who(c), pair.data), 200)
  })

  app.openapi({ ...jurisdictionsList, ...guard }, async (c) =>
    c.json(await rwa.listJurisdictions(ctx, who(c), c.req.valid('query')), 200),
  )
  app.openapi({ ...jurisdictionsRegister, ...guard }, async (c) =>
    c.json(await rwa.registerJurisdiction(ctx, who(c), c.req.valid('json')), 201),
  )
  app.openapi({ ...jurisdictionsGet, ...guard }, async (c) =>
    c.json(await rwa.getJurisdiction(ctx, who(c), c.req.valid('param').id), 200),
  )
  app.openapi({ ...jurisdictionsUpdate, ...guard }, async (c) =>
    c.json(await rwa.updateJurisdiction(ctx, who(c), c.req.valid('param').id, c.req.valid('json')), 200),
  )
  app.openapi({ ...jurisdictionsRemove, ...guard }, async (c) =>
    c.json(await rwa.removeJurisdiction(ctx, who(c), c.req.valid('param').id), 200),
  )

  app.openapi({ ...credentialsList, ...guard }, async (c) =>
    c.json(await rwa.listCredentials(ctx, who(c), c.req.valid('query')), 200),
  )
  app.openapi({ ...credentialsIssue, ...guard }, async (c) =>
    c.json(await rwa.issueCredential(ctx, who(c), c.req.valid('json')), 201),
  )
  app.openapi({ ...credentialsGet, ...guard }, async (c) =>
    c.json(await rwa.getCredential(ctx, who(c), c.req.valid('param').id), 200),
  )
  app.openapi({ ...credentialsRevoke, ...guard }, async (c) =>
    c.json(
      await rwa.revokeCredential(
        ctx,
        who(c),
        c.req.valid('param').id,
        // A body sent with a non-JSON content type is not parsed: treat it as no body.
        (c.req.valid('json') as { reason?: string } | undefined) ?? {},
      ),
      200,
    ),
  )

  app.openapi({ ...attestationsList, ...guard }, async (c) =>
    c.json(await rwa.listAttestations(ctx, who(c), c.req.valid('query')), 200),
  )
  app.openapi({ ...attestationsSubmit, ...guard }, async (c) =>
    c.json(await rwa.submitAttestation(ctx, who(c), c.req.valid('json')), 201),
  )
  app.openapi({ ...attestationsGet, ...guard }, async (c) =>
    c.json(await rwa.getAttestation(ctx, who(c), c.req.valid('param').id), 200),
  )

  app.openapi({ ...tokenizeRoute, ...guard }, async (c) =>
    c.json(await rwa.tokenize(ctx, who(c), c.req.valid('json')), 201),
  )
  app.openapi({ ...tokensList, ...guard }, async (c) =>
    c.json(await rwa.listTokens(ctx, who(c), c.req.valid('query')), 200),
  )
  app.openapi({ ...tokensGet, ...guard }, async (c) =>
    c.json(await rwa.getToken(ctx, who(c), c.req.valid('param').id), 200),
  )

  app.openapi({ ...transfersRequest, ...guard }, async (c) =>
    c.json(await rwa.requestTransfer(ctx, who(c), c.req.valid('json')), 201),
  )
  app.openapi({ ...transfersList, ...guard }, async (c) =>
    c.json(await rwa.listTransfers(ctx, who(c), c.req.valid('query')), 200),
  )
  app.openapi({ ...transfersGet, ...guard }, async (c) =>
    c.json(await rwa.getTransfer(ctx, who(c), c.req.valid('param').id), 200),
  )
  app.openapi({ ...proofsGet, ...guard }, async (c) =>
    c.json(await rwa.getProof(ctx, who(c), c.req.valid('param').id), 200),
  )
}
