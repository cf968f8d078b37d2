import type { AggregateRecords } from '../../../pipeline/context.js'
import { issuerFromRow } from './from-row.js'
import { findIssuer, keysOf } from './queries.js'

/** An issuer as the API answers it, its keys included. */
export const issuerRecords: AggregateRecords = {
  objects: {
    issuer: async (_ctx, db, orgId, id) => {
      const row = await findIssuer(db, orgId, id)
      return row && issuerFromRow(row, await keysOf(db, orgId, id))
    },
  },
}
