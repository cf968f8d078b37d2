import { z } from 'zod'
import {
  issuerExample,
  issuerParamsSchema,
  issuerSchema,
  listIssuersQuerySchema,
  listIssuersResponseSchema,
  registerIssuerRequestExample,
  registerIssuerRequestSchema,
  updateIssuerRequestExample,
  updateIssuerRequestSchema,
} from './issuers.js'
import { defineOperation, jsonBody, jsonResponse, optionalJsonBody } from './operation.js'
import { RWA_BASE, rwaTags } from './rwa-routes.js'

const governance = { access: 'governance', tags: rwaTags } as const
const noFields = optionalJsonBody(z.strictObject({}), {})

/**
 * The trusted issuers registry (docs/issuers.md): the outside providers whose credentials the
 * organization accepts. In routing order: `/issuers/{id}/refresh` after `/issuers/{id}`, which it does
 * not overlap (another segment count).
 */
export const issuerRoutes = {
  listIssuers: defineOperation({
    ...governance,
    operationId: 'listIssuers',
    method: 'get',
    path: `${RWA_BASE}/issuers`,
    summary: 'List trusted issuers, newest first; filter by jurisdiction, requirement, status',
    query: listIssuersQuerySchema,
    response: jsonResponse(200, listIssuersResponseSchema, 'Issuers, newest first', {
      issuers: [issuerExample],
      total: 1,
      next_cursor: null,
    }),
  }),
  registerIssuer: defineOperation({
    ...governance,
    roles: ['issuer'],
    operationId: 'registerIssuer',
    audit: ['issuer.registered'],
    method: 'post',
    path: `${RWA_BASE}/issuers`,
    summary: 'Register a trusted issuer (a did:key or did:web) for requirements in jurisdictions',
    description:
      "The DID is resolved now: a did:key carries its key; a did:web's document is fetched over https (at most 2 MiB, within 10 s, only from public addresses; http to a loopback address only when the server runs with `--allow-http-issuers`), and its Ed25519 verification methods (JWK or Multikey) become the issuer's keys. A DID that cannot be resolved, or has no Ed25519 key, is 422 `issuer_unresolvable` with `context.reason`. Each requirement must be one a jurisdiction of the organization lists, and each jurisdiction one of the organization's.",
    body: jsonBody(registerIssuerRequestSchema, registerIssuerRequestExample),
    response: jsonResponse(201, issuerSchema, 'Registered', issuerExample),
    refusals: [
      'issuer_exists',
      'issuer_unresolvable',
      'jurisdiction_not_found',
      'unknown_requirement',
      'valid_until_not_future',
    ],
  }),
  getIssuer: defineOperation({
    ...governance,
    operationId: 'getIssuer',
    method: 'get',
    path: `${RWA_BASE}/issuers/{id}`,
    summary: 'Get a trusted issuer, with every key it ever had',
    params: issuerParamsSchema,
    response: jsonResponse(200, issuerSchema, 'The issuer', issuerExample),
    refusals: ['issuer_not_found'],
  }),
  updateIssuer: defineOperation({
    ...governance,
    roles: ['issuer'],
    operationId: 'updateIssuer',
    audit: ['issuer.updated', 'issuer.suspended'],
    method: 'patch',
    path: `${RWA_BASE}/issuers/{id}`,
    summary:
      'Change a trusted issuer: name, requirements, jurisdictions, valid_until, status (active or suspended)',
    params: issuerParamsSchema,
    body: jsonBody(updateIssuerRequestSchema, updateIssuerRequestExample),
    response: jsonResponse(200, issuerSchema, 'Updated', { ...issuerExample, status: 'suspended' }),
    refusals: [
      'issuer_not_found',
      'issuer_removed',
      'jurisdiction_not_found',
      'unknown_requirement',
      'valid_until_not_future',
    ],
  }),
  removeIssuer: defineOperation({
    ...governance,
    roles: ['issuer'],
    operationId: 'removeIssuer',
    audit: ['issuer.removed'],
    method: 'delete',
    path: `${RWA_BASE}/issuers/{id}`,
    summary:
      'Remove a trusted issuer: the record and its keys are kept (status `removed`), its credentials are refused',
    params: issuerParamsSchema,
    response: jsonResponse(200, issuerSchema, 'Removed', { ...issuerExample, status: 'removed' }),
    refusals: ['issuer_not_found', 'issuer_removed'],
  }),
  refreshIssuer: defineOperation({
    ...governance,
    roles: ['issuer'],
    operationId: 'refreshIssuer',
    audit: ['issuer.keys_changed'],
    method: 'post',
    path: `${RWA_BASE}/issuers/{id}/refresh`,
    summary:
      "Resolve the issuer's DID again now: new keys are added, keys gone from it retired (never deleted)",
    params: issuerParamsSchema,
    body: noFields,
    response: jsonResponse(200, issuerSchema, 'The issuer with its keys as resolved now', issuerExample),
    refusals: ['issuer_not_found', 'issuer_removed', 'issuer_unresolvable'],
  }),
} as const
