import { type TrustBundle, trustBundleSchema } from '../../contract/rwa.js'
import { checkExternalStatus, type VerifiedExternal } from '../../proof/external-credential.js'
import { checkRevocation, DEFAULT_MAX_STATUS_AGE_MS, formatAge } from '../../proof/status-list.js'
import { boundedFetchText } from '../bounded-fetch.js'
import type { CliContext } from '../context.js'
import { EXIT, ExitError } from '../exit-error.js'
import { duration } from '../flags/parse.js'
import { parseJsonInput, readInputFile } from '../input.js'

/*
 * What every verify command shares (docs/cli.md, "Auditing offline"): the trust anchors (`--trust FILE`, else
 * the server's trust bundle), the status check (fail-closed, bounded by `--max-status-age`, skipped by
 * `--offline`) and exit code 8 for a verification that does not hold.
 */

/** The options every verify command takes. */
export interface VerifyOptions {
  trust?: string
  offline?: boolean
  maxStatusAge?: string
}

/** A verification that does not hold: exit 8. */
export const doesNotHold = (message: string, hint?: string): ExitError =>
  new ExitError(EXIT.verification, message, hint)

/**
 * The trust bundle to verify against: the file of `--trust` (saved with `rwa trust-bundle >
 * trust.json`; no network), else the server's (a key of the organization is needed).
 */
export async function trustOf(
  ctx: CliContext,
  options: VerifyOptions,
): Promise<{ bundle: TrustBundle; from: string }> {
  if (options.trust === undefined) {
    const rwa = await ctx.rwa()
    return { bundle: (await rwa.governance.getTrustBundle()).data, from: rwa.baseUrl }
  }
  const name = options.trust === '-' ? 'stdin' : options.trust
  const hint = 'save it with `rwa trust-bundle > trust.json`'
  const parsed = trustBundleSchema.safeParse(
    parseJsonInput(
      await readInputFile(options.trust, ctx, `--trust wants a trust bundle: ${hint}`),
      options.trust,
      hint,
    ),
  )
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!
    throw new ExitError(
      EXIT.usage,
      `--trust ${name} is not a trust bundle (${issue.path.join('.') || '(file)'}: ${issue.message})`,
      hint,
    )
  }
  return { bundle: parsed.data, from: name }
}

/** `--max-status-age` in milliseconds (default 24h). */
export const maxStatusAgeOf = (options: VerifyOptions): number =>
  options.maxStatusAge === undefined
    ? DEFAULT_MAX_STATUS_AGE_MS
    : duration(options.maxStatusAge, '--max-status-age')

/** What the status check of a VC said: holds (with a note), or does not (with the reason). */
export type StatusOutcome = { holds: true; note: string } | { holds: false; reason: string }

/**
 * The revocation status of a VC by its status list, fail-closed: revoked, or a list that cannot be
 * fetched, verified, bound to the credential's issuer and URL, or is older than `--max-status-age`,
 * does not hold. `--offline` skips it, and says so.
 */
export async function statusOf(vcJwt: string, options: VerifyOptions): Promise<StatusOutcome> {
  if (options.offline) return { holds: true, note: 'status not checked (--offline)' }
  const maxAgeMs = maxStatusAgeOf(options)
  const status = await checkRevocation(vcJwt, (url) => boundedFetchText(url), { maxAgeMs })
  if (status.status === 'revoked') {
    return {
      holds: false,
      reason: `revoked: bit ${status.statusListIndex} of its status list ${status.statusListCredential} is set`,
    }
  }
  if (status.status === 'unknown') return { holds: false, reason: `status not verified: ${status.reason}` }
  return {
    holds: true,
    note: `not revoked per its status list (bit ${status.statusListIndex}, list signed by the issuer at ${status.validFrom}, within ${formatAge(maxAgeMs)})`,
  }
}

/**
 * The status of a trusted issuer's credential by its issuer's lists (revocation and suspension),
 * fetched now (bounded) and verified by the issuer's keys of the trust bundle, fail-closed: a bit set,
 * or a list that cannot be fetched or verified, does not hold. `--offline` skips it, and says so.
 */
export async function externalStatusOf(
  verified: VerifiedExternal,
  options: VerifyOptions,
  label: string,
): Promise<StatusOutcome> {
  if (options.offline) return { holds: true, note: 'status not checked (--offline)' }
  if (verified.entries.length === 0) return { holds: true, note: 'it names no status list' }
  const status = await checkExternalStatus(
    verified,
    async (url) => {
      try {
        return { listJwt: (await boundedFetchText(url)).trim(), fetchedAt: new Date().toISOString() }
      } catch (error) {
        return { error: `${url}: ${(error as Error).message}` }
      }
    },
    { now: new Date(), maxAgeMs: maxStatusAgeOf(options), label },
  )
  if (!status.ok) return { holds: false, reason: `${status.detail} (${status.reason})` }
  const purposes = verified.entries.map((e) => e.statusPurpose).join(' and ')
  return {
    holds: true,
    note: `neither revoked nor suspended per its issuer's ${purposes} lists, fetched now`,
  }
}
