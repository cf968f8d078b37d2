import type { AggregateRecords } from '../../../pipeline/context.js'
import { credentialFromRow } from './from-row.js'
import { findCredential } from './queries.js'

export const credentialRecords: AggregateRecords = {
  objects: {
    credential: async (_ctx, db, orgId, id) => {
      const row = await findCredential(db, orgId, id)
      return row && credentialFromRow(row)
    },
  },
}
