import {
  changeIdentityDidsRequestExample,
  changeIdentityDidsRequestSchema,
  createIdentityRequestExample,
  createIdentityRequestSchema,
  identityExample,
  identityParamsSchema,
  identitySchema,
  listIdentitiesQuerySchema,
  listHoldersQuerySchema,
  listHoldersResponseExample,
  listHoldersResponseSchema,
  listIdentitiesResponseSchema,
  updateIdentityRequestExample,
  updateIdentityRequestSchema,
} from './identities.js'
import { defineOperation, jsonBody, jsonResponse } from './operation.js'
import { RWA_BASE, rwaTags } from './rwa-routes.js'
import { tokenParamsSchema } from './rwa.js'

const governance = { access: 'governance', tags: rwaTags } as const

/**
 * Investors' identities (docs/identities.md). In routing order: `/identities/{id}/dids` after
 * `/identities/{id}`, which it does not overlap (another segment count).
 */
export const identityRoutes = {
  listIdentities: defineOperation({
    ...governance,
    operationId: 'listIdentities',
    method: 'get',
    path: `${RWA_BASE}/identities`,
    summary: 'List identities, newest first; filter by country, category, did',
    query: listIdentitiesQuerySchema,
    response: jsonResponse(200, listIdentitiesResponseSchema, 'Identities, newest first', {
      identities: [identityExample],
      total: 1,
      next_cursor: null,
    }),
  }),
  createIdentity: defineOperation({
    ...governance,
    roles: ['issuer'],
    operationId: 'createIdentity',
    audit: ['identity.created'],
    method: 'post',
    path: `${RWA_BASE}/identities`,
    summary: 'Create an identity: the DIDs of one investor, its country and category',
    description:
      'A DID belongs to at most one identity of the organization: a DID of another identity is 409 `did_in_use` (`context.did`, `context.identity_id`), also when two requests claim it at once.',
    body: jsonBody(createIdentityRequestSchema, createIdentityRequestExample),
    response: jsonResponse(201, identitySchema, 'Created', identityExample),
    refusals: ['identity_exists', 'did_in_use'],
  }),
  getIdentity: defineOperation({
    ...governance,
    operationId: 'getIdentity',
    method: 'get',
    path: `${RWA_BASE}/identities/{id}`,
    summary: 'Get an identity with its DIDs',
    params: identityParamsSchema,
    response: jsonResponse(200, identitySchema, 'The identity', identityExample),
    refusals: ['identity_not_found'],
  }),
  updateIdentity: defineOperation({
    ...governance,
    roles: ['issuer'],
    operationId: 'updateIdentity',
    audit: ['identity.updated'],
    method: 'patch',
    path: `${RWA_BASE}/identities/{id}`,
    summary: "Change an identity's country or category",
    params: identityParamsSchema,
    body: jsonBody(updateIdentityRequestSchema, updateIdentityRequestExample),
    response: jsonResponse(200, identitySchema, 'Updated', { ...identityExample, category: 'qualified' }),
    refusals: ['identity_not_found'],
  }),
  changeIdentityDids: defineOperation({
    ...governance,
    roles: ['issuer'],
    operationId: 'changeIdentityDids',
    audit: ['identity.dids_changed'],
    method: 'post',
    path: `${RWA_BASE}/identities/{id}/dids`,
    summary: 'Add DIDs to an identity or remove some (a removed DID is free for another identity)',
    description:
      'A DID to add that is in another identity is 409 `did_in_use`; one to remove that is not the identity’s is 400 naming `remove`; an identity keeps at least one DID.',
    params: identityParamsSchema,
    body: jsonBody(changeIdentityDidsRequestSchema, changeIdentityDidsRequestExample),
    response: jsonResponse(200, identitySchema, 'The identity with its DIDs now', {
      ...identityExample,
      dids: ['did:web:acme:alice', 'did:web:acme:alice-new'],
    }),
    refusals: ['identity_not_found', 'did_in_use'],
  }),
  listHolders: defineOperation({
    ...governance,
    operationId: 'listHolders',
    method: 'get',
    path: `${RWA_BASE}/tokens/{id}/holders`,
    summary:
      "A token's holders grouped by identity: each identity's total and its DIDs' units; a DID of no identity alone",
    params: tokenParamsSchema,
    query: listHoldersQuerySchema,
    response: jsonResponse(
      200,
      listHoldersResponseSchema,
      'Holders, by identity then lone DID',
      listHoldersResponseExample,
    ),
    refusals: ['token_not_found', 'invalid_cursor'],
  }),
} as const
