/*
 * The origin of an organization's log: `<public host>/console/audit/<org_id>`, the first line of its
 * checkpoints and the name of the key that signs them (docs/governance.md, "The verifiable log: a record no one can rewrite unnoticed").
 * What is signed names the log: verifiers read its organization from here, not from the fields sent
 * beside a checkpoint.
 */

const LOG_PATH = '/console/audit/'

/** The organization whose log `origin` names, or undefined when it names none. */
export function orgOfOrigin(origin: string): string | undefined {
  const at = origin.lastIndexOf(LOG_PATH)
  const org = at > 0 ? origin.slice(at + LOG_PATH.length) : ''
  return org !== '' && !org.includes('/') ? org : undefined
}
