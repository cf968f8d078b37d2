import type { AggregateRecords } from '../../../pipeline/context.js'
import { trustFromRow } from './from-row.js'
import { findTrustRelation } from './queries.js'

export const trustRecords: AggregateRecords = {
  objects: {
    trust: async (_ctx, db, orgId, id) => {
      const row = await findTrustRelation(db, orgId, id)
      return row && trustFromRow(row)
    },
  },
}
