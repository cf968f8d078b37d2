import type { ComponentType } from 'preact'
import { Approvals } from './approvals.js'
import { Attestations } from './attestations.js'
import { Audit } from './audit.js'
import { Credentials } from './credentials.js'
import { Identities } from './identities.js'
import { Issuers } from './issuers.js'
import { Jurisdictions } from './jurisdictions.js'
import { Keys } from './keys.js'
import { Log } from './log.js'
import { Overview } from './overview.js'
import { Tokens } from './tokens.js'
import { Transfers } from './transfers.js'
import { Trust } from './trust.js'
import { Webhooks } from './webhooks.js'

/** What a page receives: its record's id (a record's page) and the URL's query (filters, cursors). */
export interface PageProps {
  id: string | undefined
  query: URLSearchParams
}

/** Each page of the navigation (src/contract/console-constants.ts), by its slug. */
export const PAGES: Record<string, { component: ComponentType<PageProps> }> = {
  '': { component: Overview },
  trust: { component: Trust },
  jurisdictions: { component: Jurisdictions },
  credentials: { component: Credentials },
  attestations: { component: Attestations },
  issuers: { component: Issuers },
  identities: { component: Identities },
  tokens: { component: Tokens },
  transfers: { component: Transfers },
  approvals: { component: Approvals },
  audit: { component: Audit },
  log: { component: Log },
  keys: { component: Keys },
  webhooks: { component: Webhooks },
}
