import type { SomeHandlers } from '../../../pipeline/handler.js'
import { dialectOf } from '../../../platform/db/dialect.js'
import { withoutSavepoints } from '../../../platform/db/held-connection.js'
import { answerPrepared } from '../../../platform/http/prepared-answer.js'
import { getProof, getTransfer, jwks, listTransfers, requestTransfer } from './service.js'

/** Transfers and their compliance proofs, and the public key set that verifies proofs. */
export const transferHandlers = {
  getProofKeys: async (ctx, { c }) => answerPrepared(c, await jwks(ctx)),
  // The transfer's transaction is no savepoint of the write on SQLite (withoutSavepoints): whoever
  // goes on after a failed transfer runs it in a savepoint of its own (a batch's operation alone, a
  // dry run: server/pipeline/writes/savepoint.ts), and anywhere else its failure fails the write, which
  // rolls back whole. The savepoint journalled every page the transfer first changed, for nothing.
  requestTransfer: (ctx, { principal, body }) =>
    dialectOf(ctx.db) === 'sqlite'
      ? withoutSavepoints(() => requestTransfer(ctx, principal, body))
      : requestTransfer(ctx, principal, body),
  listTransfers: (ctx, { principal, query }) => listTransfers(ctx, principal, query),
  getTransfer: (ctx, { principal, params }) => getTransfer(ctx, principal, params.id),
  getProof: (ctx, { principal, params }) => getProof(ctx, principal, params.id),
} satisfies SomeHandlers
