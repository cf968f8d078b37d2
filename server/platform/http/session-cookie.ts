/*
 * The console's session cookie as a request carries it (docs/console.md, "Security model"): its name and
 * the form of its secret. A leaf, so that the gate in front of the app and authentication read it alike.
 */

/** The cookie's name. */
export const SESSION_COOKIE = 'rwa_session'

/** A secret as the server makes them: 32 random bytes, base64url. */
const SECRET_PATTERN = /^[A-Za-z0-9_-]{43}$/

/** The well-formed session secret of a `Cookie` header, if it carries one. */
export function sessionSecretOf(cookieHeader: string | undefined): string | undefined {
  if (!cookieHeader) return undefined
  for (const pair of cookieHeader.split(';')) {
    const at = pair.indexOf('=')
    if (at < 0 || pair.slice(0, at).trim() !== SESSION_COOKIE) continue
    const value = pair.slice(at + 1).trim()
    if (SECRET_PATTERN.test(value)) return value
  }
  return undefined
}
