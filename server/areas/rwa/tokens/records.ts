import type { AggregateRecords } from '../../../pipeline/context.js'
import { tokenDetail } from './service.js'

/** A token as `GET /governance/tokens/{id}` answers it: its holdings and recent history with it. */
export const tokenRecords: AggregateRecords = {
  objects: {
    token: (_ctx, db, orgId, id) => tokenDetail(db, orgId, id),
  },
}
