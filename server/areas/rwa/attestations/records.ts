import type { AggregateRecords } from '../../../pipeline/context.js'
import { attestationFromRow, externalAttestationFromRow } from './from-row.js'
import { findAttestation, findExternalAttestation } from './queries.js'

export const attestationRecords: AggregateRecords = {
  objects: {
    attestation: async (_ctx, db, orgId, id) => {
      const row = await findAttestation(db, orgId, id)
      if (row) return attestationFromRow(row)
      const external = await findExternalAttestation(db, orgId, id)
      return external && externalAttestationFromRow(external)
    },
  },
}
