import type { AggregateRecords } from '../../../pipeline/context.js'
import { proofFromRow, transferFromRow } from './from-row.js'
import { findProof, findTransfer } from './queries.js'
import { withLogIndex } from './service.js'

export const transferRecords: AggregateRecords = {
  objects: {
    transfer: async (ctx, db, orgId, id) => {
      const row = await findTransfer(db, orgId, id)
      if (!row) return undefined
      const proof = await findProof(db, orgId, row.proof_id)
      // The proof's log_index is its transfer's audit event's, appended just before in the same write;
      // the transfer names it too, as GET does.
      const withIndex = proof ? await withLogIndex(ctx, orgId, proofFromRow(proof, row)) : undefined
      return {
        ...transferFromRow(row),
        ...(withIndex?.log_index === undefined ? {} : { log_index: withIndex.log_index }),
        ...(withIndex ? { proof: withIndex } : {}),
      }
    },
  },
}
