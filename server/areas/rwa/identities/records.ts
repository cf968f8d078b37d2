import type { AggregateRecords } from '../../../pipeline/context.js'
import { identityFromRow } from './from-row.js'
import { didsOfIdentity, findIdentity } from './queries.js'

/** An identity as the API answers it, its DIDs included. */
export const identityRecords: AggregateRecords = {
  objects: {
    identity: async (_ctx, db, orgId, id) => {
      const row = await findIdentity(db, orgId, id)
      return row && identityFromRow(row, await didsOfIdentity(db, orgId, id))
    },
  },
}
