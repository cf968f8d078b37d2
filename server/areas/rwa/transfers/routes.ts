import type { SomeHandlers } from '../../../pipeline/handler.js'
import { getProof, getTransfer, jwks, listTransfers, requestTransfer } from './service.js'

/** Transfers and their compliance proofs, and the public key set that verifies proofs. */
export const transferHandlers = {
  getProofKeys: (ctx) => jwks(ctx),
  requestTransfer: (ctx, { principal, body }) => requestTransfer(ctx, principal, body),
  listTransfers: (ctx, { principal, query }) => listTransfers(ctx, principal, query),
  getTransfer: (ctx, { principal, params }) => getTransfer(ctx, principal, params.id),
  getProof: (ctx, { principal, params }) => getProof(ctx, principal, params.id),
} satisfies SomeHandlers
