import type { Migration } from 'kysely'
import { billing } from './0001-billing.js'
import { governance } from './0002-governance.js'
import { tokenGovernance } from './0004-token-governance.js'
import { sharedInstances } from './0005-shared-instances.js'
import { leanWrites } from './0006-lean-writes.js'
import { flatCosts } from './0007-flat-costs.js'
import { summaryColumns } from './0008-summary-columns.js'
import { verification } from './0009-verification.js'
import { keyRoles } from './0011-key-roles.js'
import { accountability } from './0012-accountability.js'
import { keyCustody } from './0013-key-custody.js'
import { approvals } from './0014-approvals.js'
import { auditLog } from './0015-audit-log.js'
import { events } from './0016-events.js'
import { wideCounters } from './0017-wide-counters.js'
import { logNodeBlobs } from './0018-log-node-blobs.js'
import { logTiles } from './0019-log-tiles.js'
import { fairDeliveries } from './0020-fair-deliveries.js'
import { keyPrincipals } from './0021-key-principals.js'
import { removedJurisdictions } from './0022-removed-jurisdictions.js'
import { consoleSessions } from './0023-console-sessions.js'
import { trustedIssuers } from './0024-trusted-issuers.js'
import { suspension } from './0025-suspension.js'
import { identities } from './0026-identities.js'
import { supplyRules } from './0027-supply-rules.js'

/**
 * Every schema version, in order. Names sort in the order they apply; a migration that has shipped is
 * never edited, only followed by a new one.
 */
export const migrations: Record<string, Migration> = {
  '0001-billing': billing,
  '0002-governance': governance,
  '0004-token-governance': tokenGovernance,
  '0005-shared-instances': sharedInstances,
  '0006-lean-writes': leanWrites,
  '0007-flat-costs': flatCosts,
  '0008-summary-columns': summaryColumns,
  '0009-verification': verification,
  '0011-key-roles': keyRoles,
  '0012-accountability': accountability,
  '0013-key-custody': keyCustody,
  '0014-approvals': approvals,
  '0015-audit-log': auditLog,
  '0016-events': events,
  '0017-wide-counters': wideCounters,
  '0018-log-node-blobs': logNodeBlobs,
  '0019-log-tiles': logTiles,
  '0020-fair-deliveries': fairDeliveries,
  '0021-key-principals': keyPrincipals,
  '0022-removed-jurisdictions': removedJurisdictions,
  '0023-console-sessions': consoleSessions,
  '0024-trusted-issuers': trustedIssuers,
  '0025-suspension': suspension,
  '0026-identities': identities,
  '0027-supply-rules': supplyRules,
}
