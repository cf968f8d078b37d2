import type { AggregateRecords } from '../../../pipeline/context.js'
import { attestationFromRow } from './from-row.js'
import { findAttestation } from './queries.js'

export const attestationRecords: AggregateRecords = {
  objects: {
    attestation: async (_ctx, db, orgId, id) => {
      const row = await findAttestation(db, orgId, id)
      return row && attestationFromRow(row)
    },
  },
}
