/*
 * What the console's page and the server agree on, free of zod so that the page's bundle stays small
 * (docs/console.md, "The stack").
 */

/** Where the console is served, and its session endpoint. */
export const CONSOLE_BASE = '/console/ui'
export const CONSOLE_SESSION_PATH = `${CONSOLE_BASE}/session`

/** The header a write through a console session carries its CSRF token in. */
export const CSRF_HEADER = 'X-CSRF-Token'

/** How long a console session lasts at most (its key's own expiry may end it sooner). */
export const SESSION_HOURS = 8

/**
 * The console's pages, in the order of its navigation: each is `/console/ui/<slug>` (the overview is
 * `/console/ui/`), and a record of it `/console/ui/<slug>/<id>`.
 */
export const CONSOLE_PAGES = [
  { slug: '', title: 'Overview' },
  { slug: 'trust', title: 'Trust' },
  { slug: 'jurisdictions', title: 'Jurisdictions' },
  { slug: 'credentials', title: 'Credentials' },
  { slug: 'attestations', title: 'Attestations' },
  { slug: 'issuers', title: 'Issuers' },
  { slug: 'identities', title: 'Identities' },
  { slug: 'tokens', title: 'Tokens' },
  { slug: 'transfers', title: 'Transfers' },
  { slug: 'approvals', title: 'Approvals' },
  { slug: 'audit', title: 'Audit' },
  { slug: 'log', title: 'Log' },
  { slug: 'keys', title: 'Keys' },
  { slug: 'webhooks', title: 'Webhooks' },
] as const

/** Whether `/console/ui/<path>` is one of the console's pages (or a record of one). */
export function isConsolePage(path: string): boolean {
  const [slug, id, ...rest] = path.split('/')
  if (rest.length > 0) return false
  const page = CONSOLE_PAGES.find((p) => p.slug === slug)
  if (!page) return false
  return id === undefined || (page.slug !== '' && id !== '')
}
