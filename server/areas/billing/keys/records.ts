import type { AggregateRecords } from '../../../pipeline/context.js'
import { entitlementOf } from '../../../platform/limits/entitlement.js'
import { organizationOf } from '../subscriptions/service.js'
import { findKeyRow } from './queries.js'
import { keyRecordOf } from './service.js'

/** A key as `GET /console/billing/keys` lists it: masked, never its raw value. */
export const keyRecords: AggregateRecords = {
  objects: {
    key: async (ctx, db, _orgId, id) => {
      const row = await findKeyRow(db, id)
      if (!row) return undefined
      const org = await organizationOf(ctx, row.org_id)
      const now = ctx.clock.now()
      return keyRecordOf(row, org, entitlementOf(org, now).tier, now)
    },
  },
}
