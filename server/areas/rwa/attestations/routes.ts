import type { SomeHandlers } from '../../../pipeline/handler.js'
import { getAttestation, listAttestations, revokeAttestation, submitAttestation } from './service.js'

export const attestationHandlers = {
  listAttestations: (ctx, { principal, query }) => listAttestations(ctx, principal, query),
  submitAttestation: (ctx, { principal, body }) => submitAttestation(ctx, principal, body),
  getAttestation: (ctx, { principal, params }) => getAttestation(ctx, principal, params.id),
  revokeAttestation: (ctx, { principal, params, body }) => revokeAttestation(ctx, principal, params.id, body),
} satisfies SomeHandlers
