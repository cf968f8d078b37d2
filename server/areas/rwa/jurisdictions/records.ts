import type { AggregateRecords } from '../../../pipeline/context.js'
import { jurisdictionFromRow } from './from-row.js'
import { findJurisdiction } from './queries.js'

/** A jurisdiction as the API answers it; once removed, what the removal answered about it. */
export const jurisdictionRecords: AggregateRecords = {
  objects: {
    jurisdiction: async (_ctx, db, orgId, id) => {
      const row = await findJurisdiction(db, orgId, id)
      return row ? jurisdictionFromRow(row) : { status: 'removed', jurisdiction_id: id }
    },
  },
}
