import type { SomeHandlers } from '../../../pipeline/handler.js'
import { getAttestation, listAttestations, revokeAttestation, submitAttestation } from './service.js'
import { reinstateAttestation, suspendAttestation } from './suspension.js'

export const attestationHandlers = {
  listAttestations: (ctx, { principal, query }) => listAttestations(ctx, principal, query),
  submitAttestation: (ctx, { principal, body }) => submitAttestation(ctx, principal, body),
  getAttestation: (ctx, { principal, params }) => getAttestation(ctx, principal, params.id),
  revokeAttestation: (ctx, { principal, params, body }) => revokeAttestation(ctx, principal, params.id, body),
  suspendAttestation: (ctx, { principal, params, body }) =>
    suspendAttestation(ctx, principal, params.id, body),
  reinstateAttestation: (ctx, { principal, params }) => reinstateAttestation(ctx, principal, params.id),
} satisfies SomeHandlers
