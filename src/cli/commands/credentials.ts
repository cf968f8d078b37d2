import { existsSync } from 'node:fs'
import type { Command } from 'commander'
import type { Credential } from '../../contract/rwa.js'
import { checkRevocation } from '../../proof/status-list.js'
import { isExternalVc, verifyExternalAttestation } from '../../proof/external-attestation.js'
import { verifyCredential } from '../../proof/verify-credential.js'
import { boundedFetchText } from '../bounded-fetch.js'
import type { CliContext } from '../context.js'
import { withContext } from '../context.js'
import { EXIT, ExitError } from '../exit-error.js'
import { parseJsonInput, readInputFile } from '../input.js'
import type { Run } from '../invoke.js'
import type { Styled } from '../output.js'
import { listing } from '../paging.js'
import { confirmed, showing } from './shapes.js'
import {
  doesNotHold,
  externalStatusOf,
  maxStatusAgeOf,
  statusOf,
  trustOf,
  type VerifyOptions,
} from './verification.js'

/** A record's status, coloured: green while active, yellow while suspended, red once revoked. */
export function statusWord(ctx: CliContext, status: string): Styled {
  if (status === 'active') return ctx.out.style.green(status)
  return status === 'suspended' ? ctx.out.style.yellow(status) : ctx.out.style.red(status)
}

/** A credential as `rwa credentials get` prints it. */
export function showCredential(ctx: CliContext, c: Credential): void {
  ctx.out.record([
    ['credential_id', c.credential_id],
    ['type', c.type],
    ['status', statusWord(ctx, c.status)],
    ['jurisdiction', c.jurisdiction],
    ['owner_did', c.owner_did],
    ['address', c.property_data.address],
    ['property type', c.property_data.type],
    ['value_usd', c.property_data.value_usd],
    ['title_deed', c.property_data.title_deed],
    ['issuer_did', c.issuer_did],
    ['issued_at', c.issued_at],
    ['valid_until', c.valid_until],
    ['revoked_at', c.revoked_at],
    ['revocation_reason', c.revocation_reason],
  ])
}

export const list = listing('listCredentials', 'credentials', {
  noun: ['credential', 'credentials'],
  headers: ['credential_id', 'jurisdiction', 'owner_did', 'title_deed', 'value_usd', 'status'],
  row: (_, c) => [
    c.credential_id,
    c.jurisdiction,
    c.owner_did,
    c.property_data.title_deed,
    c.property_data.value_usd,
    c.status,
  ],
  id: (c) => c.credential_id,
})

export const get = showing('getCredential', showCredential, (c) => [c.credential_id])

export const issue: Run<'issueCredential'> = async ({ ctx, send }) => {
  const { data, raw } = await send()
  ctx.out.result(raw, () => {
    showCredential(ctx, data)
    ctx.out.success(`issued credential ${data.credential_id}`)
  }, [data.credential_id])
}

export const revoke = confirmed(
  'revokeCredential',
  ({ params }) => ({
    action: `revoke credential ${params.id}`,
    warning: 'Tokens backed by it can no longer be transferred.',
  }),
  (ctx, data) => ctx.out.success(`revoked credential ${data.credential_id}`),
  (data) => [data.credential_id],
)

/** `rwa credentials suspend ID [--reason]`: until reinstated; its transfers fail credential_valid. */
export const suspend = confirmed(
  'suspendCredential',
  ({ params }) => ({
    action: `suspend credential ${params.id}`,
    warning: 'Tokens backed by it cannot be transferred until it is reinstated.',
  }),
  (ctx, data) => {
    showCredential(ctx, data)
    ctx.out.success(`suspended credential ${data.credential_id}`)
  },
  (data) => [data.credential_id],
)

/** `rwa credentials reinstate ID`: a suspended credential is valid again. */
export const reinstate = showing(
  'reinstateCredential',
  (ctx, data) => {
    showCredential(ctx, data)
    ctx.out.success(`reinstated credential ${data.credential_id}`)
  },
  (c) => [c.credential_id],
)

/** A VC to verify from a file or stdin: a record carrying `vc_jwt`, or the compact VC-JWT itself. */
async function vcFromInput(source: string, ctx: CliContext): Promise<{ vcJwt: string; record?: unknown }> {
  const name = source === '-' ? 'stdin' : source
  const text = (await readInputFile(source, ctx)).trim()
  if (/^[\w-]+\.[\w-]+\.[\w-]*$/.test(text)) return { vcJwt: text }
  const json = parseJsonInput(
    text,
    source,
    'give a VC-JWT, or a record saved with `rwa credentials get ID --json > credential.json`',
    { verified: true },
  )
  const record = json as { vc_jwt?: unknown } | null
  if (typeof record !== 'object' || record === null || typeof record.vc_jwt !== 'string') {
    throw doesNotHold(
      `${name} has no vc_jwt: expected a credential or attestation record, or a bare VC-JWT`,
      'save a credential with `rwa credentials get ID --json > credential.json`',
    )
  }
  return { vcJwt: record.vc_jwt, record }
}

/** The VC of an id (fetched as the server holds it now) or of a file or stdin. */
async function vcOf(
  source: string,
  ctx: CliContext,
  options: VerifyOptions,
): Promise<{ vcJwt: string; record?: unknown; byId: boolean }> {
  if (source === '-' && options.trust === '-') {
    throw new ExitError(EXIT.usage, 'the credential and --trust cannot both come from stdin')
  }
  if (source !== '-' && /^(cred|att)_/.test(source) && !existsSync(source)) {
    const gov = (await ctx.rwa()).governance
    const { raw } = source.startsWith('cred_')
      ? await gov.getCredential({ params: { id: source } })
      : await gov.getAttestation({ params: { id: source } })
    const record = raw as { vc_jwt: string }
    return { vcJwt: record.vc_jwt, record, byId: true }
  }
  return { ...(await vcFromInput(source, ctx)), byId: false }
}

/**
 * `rwa credentials verify <cred_... | att_... | file | ->`: verifies a credential's (or attestation's)
 * VC-JWT as an auditor would (docs/cli.md, "Auditing offline"): signed by its issuer's did:key, that issuer
 * the trust bundle's issuer of its jurisdiction (`--trust FILE`, else the server's bundle), within its
 * validity, the record around it equal to the signed VC field by field, and not revoked per its status list
 * (fail-closed; `--offline` skips it). Exits 8 when it does not hold.
 */
export function verify(source: string, options: VerifyOptions, command: Command) {
  return withContext(command, async (ctx) => {
    const input = await vcOf(source, ctx, options)
    const trust = await trustOf(ctx, options)
    const saved = input.record as Record<string, unknown> | undefined
    if (saved ? saved.source === 'external' : isExternalVc(input.vcJwt, trust.bundle)) {
      return verifyExternal(ctx, input, trust, options)
    }
    const signature = await verifyCredential(input.vcJwt, { record: input.record, trust: trust.bundle })
    let result: { valid: true; notes: string[] } | { valid: false; reason: string } = signature
    if (signature.valid) {
      const status = await statusOf(input.vcJwt, options)
      result = status.holds
        ? { valid: true, notes: [...signature.notes, status.note] }
        : { valid: false, reason: status.reason }
    }
    const claims = signature.claims
    const id = claims ? String(claims.jti).replace(/^urn:rwa:(credential|attestation):/, '') : null
    const record = (input.record ?? {}) as Record<string, unknown>
    const report = {
      id,
      type: claims?.type ?? null,
      issuer_did: claims?.iss ?? null,
      subject_did: claims?.sub ?? null,
      valid_from: claims?.validFrom ?? null,
      valid_until: claims?.validUntil ?? null,
      status: typeof record.status === 'string' ? record.status : null,
      trust_from: trust.from,
      status_checked: !options.offline,
      valid: result.valid,
      ...(result.valid ? { notes: result.notes } : { reason: result.reason }),
    }
    ctx.out.result(report, () => {
      if (!claims || !result.valid) return
      ctx.out.record([
        ['id', id],
        ['type', claims.type.filter((t) => t !== 'VerifiableCredential').join(', ')],
        ['issuer_did', claims.iss],
        ['subject_did', claims.sub],
        ['jurisdiction', String(claims.credentialSubject?.jurisdiction ?? '')],
        ['valid_from', claims.validFrom],
        ['valid_until', claims.validUntil],
      ])
      ctx.out.line(
        `${ctx.out.style.green('✓ credential holds')}: signed by its issuer's did:key, trusted by ${trust.from}, within its validity\n  ${result.notes.join('\n  ')}`,
      )
    })
    if (!result.valid) {
      throw doesNotHold(
        `${id ?? 'the credential'} does NOT hold: ${result.reason}`,
        input.byId
          ? undefined
          : 'an id (`rwa credentials verify cred_...`) fetches the record as the server holds it now',
      )
    }
  })
}

/**
 * `rwa credentials verify` of a trusted issuer's attestation (docs/issuers.md, "In the trust bundle"): its
 * VC-JWT signed by a key of its issuer in the trust bundle's `external_issuers`, `iss` that issuer's DID,
 * of a VC type it is trusted for, the issuer active and the credential within its validity now, the record
 * around it equal to what was signed, and neither revoked nor suspended per its issuer's lists (fetched
 * now, fail-closed; `--offline` skips them). Exits 8 when it does not hold.
 */
async function verifyExternal(
  ctx: CliContext,
  input: { vcJwt: string; record?: unknown; byId: boolean },
  trust: Awaited<ReturnType<typeof trustOf>>,
  options: VerifyOptions,
): Promise<void> {
  const record = (input.record ?? {}) as Record<string, unknown>
  const checked = await verifyExternalAttestation(input.vcJwt, { record: input.record, trust: trust.bundle })
  const label = typeof record.attestation_id === 'string' ? record.attestation_id : 'the credential'
  let result: { valid: true; notes: string[] } | { valid: false; reason: string } = checked
  if (checked.valid) {
    const status = await externalStatusOf(checked.verified, options, label)
    result = status.holds
      ? { valid: true, notes: [...checked.notes, status.note] }
      : { valid: false, reason: status.reason }
  }
  const verified = checked.verified
  const claims = verified?.claims
  const report = {
    id: typeof record.attestation_id === 'string' ? record.attestation_id : (claims?.jti ?? null),
    type: verified?.vcTypes ?? null,
    issuer_id: verified?.issuer.issuer_id ?? null,
    issuer_did: verified?.issuer.did ?? null,
    subject_did: verified?.subject ?? null,
    valid_from: verified?.validFrom ?? null,
    valid_until: verified?.validUntil ?? null,
    status: typeof record.status === 'string' ? record.status : null,
    trust_from: trust.from,
    status_checked: !options.offline,
    valid: result.valid,
    ...(result.valid ? { notes: result.notes } : { reason: result.reason }),
  }
  ctx.out.result(report, () => {
    if (!verified || !result.valid) return
    ctx.out.record([
      ['id', report.id as string | null],
      ['type', verified.vcTypes.filter((t) => t !== 'VerifiableCredential').join(', ')],
      ['issuer', `${verified.issuer.issuer_id} (${verified.issuer.did})`],
      ['subject_did', verified.subject],
      ['valid_from', verified.validFrom],
      ['valid_until', verified.validUntil],
    ])
    ctx.out.line(
      `${ctx.out.style.green('✓ credential holds')}: signed by a key of its trusted issuer, trusted by ${trust.from}, within its validity\n  ${result.notes.join('\n  ')}`,
    )
  })
  if (!result.valid) {
    throw doesNotHold(
      `${String(report.id ?? 'the credential')} does NOT hold: ${result.reason}`,
      input.byId
        ? undefined
        : 'an id (`rwa credentials verify att_...`) fetches the record as the server holds it now',
    )
  }
}

/**
 * `rwa credentials status <cred_... | att_... | file | -> [--trust FILE]`: whether a credential (or
 * attestation) is revoked or suspended (when it carries a suspension entry), checked as any verifier
 * would through its public status lists (fail-closed,
 * bounded fetch, `--max-status-age`). The credential's own signature is verified first, by the trust
 * bundle's issuer of its jurisdiction (`--trust FILE`, else the server's bundle): an unsigned or
 * untrusted one names whatever URL its forger likes, so nothing it names is fetched. Exits 8 when it
 * does not verify, is revoked or suspended, or its status cannot be verified.
 */
export function status(source: string, options: VerifyOptions, command: Command) {
  return withContext(command, async (ctx) => {
    const input = await vcOf(source, ctx, options)
    const maxAgeMs = maxStatusAgeOf(options)
    const trust = await trustOf(ctx, options)
    // As recorded: a credential past its validity still has a status to read.
    const signature = await verifyCredential(input.vcJwt, { trust: trust.bundle, asRecorded: true })
    if (!signature.valid) {
      throw doesNotHold(
        `the credential does not verify, so its status list is not fetched: ${signature.reason}`,
        options.trust === undefined
          ? 'verified against the trust bundle of the server; pass --trust FILE for another'
          : `verified against --trust ${trust.from}`,
      )
    }
    const result = await checkRevocation(input.vcJwt, (url) => boundedFetchText(url), { maxAgeMs })
    ctx.out.result(result, () => {
      if (result.status === 'unknown') return
      const word = statusWord(ctx, result.status)
      ctx.out.line(
        `${word}: bit ${result.statusListIndex} of ${result.statusListCredential} (list signed by the issuer at ${result.validFrom})`,
      )
    })
    if (result.status === 'revoked') {
      throw doesNotHold('the credential is revoked', 'its issuer set its bit in the public status list')
    }
    if (result.status === 'suspended') {
      throw doesNotHold(
        'the credential is suspended: not valid until its issuer reinstates it',
        'its issuer set its bit in the public suspension list',
      )
    }
    if (result.status === 'unknown') throw doesNotHold(`status not verified: ${result.reason}`)
  })
}
