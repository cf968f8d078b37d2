import { existsSync } from 'node:fs'
import type { Command } from 'commander'
import type { Credential, IssueCredentialRequest, ListCredentialsQuery } from '../../contract/rwa.js'
import type { CliContext } from '../context.js'
import { withContext } from '../context.js'
import { checkRevocation } from '../../proof/status-list.js'
import { type VcRecord, verifyCredential } from '../../proof/verify-credential.js'
import { EXIT, ExitError } from '../exit-error.js'
import { confirmDestructive, parseJsonInput, readInputFile, requestFrom } from '../input.js'
import { fetchListing, listFooter, type PageOptions } from '../paging.js'

function showCredential(ctx: CliContext, c: Credential): void {
  ctx.out.record([
    ['credential_id', c.credential_id],
    ['type', c.type],
    ['status', c.status === 'active' ? ctx.out.style.green(c.status) : ctx.out.style.red(c.status)],
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

export function list(options: PageOptions, command: Command) {
  return withContext(command, async (ctx) => {
    const rwa = await ctx.rwa()
    const listing = await fetchListing(ctx, 'credentials', options, (query) =>
      rwa.governance.listCredentials({ query: query as ListCredentialsQuery }),
    )
    ctx.out.result(
      listing.raw,
      () => {
        ctx.out.table(
          ['credential_id', 'jurisdiction', 'owner_did', 'title_deed', 'value_usd', 'status'],
          listing.items.map((c) => [
            c.credential_id,
            c.jurisdiction,
            c.owner_did,
            c.property_data.title_deed,
            c.property_data.value_usd,
            c.status,
          ]),
        )
        listFooter(ctx, listing)
      },
      listing.items.map((c) => c.credential_id),
    )
  })
}

export function get(id: string, _options: unknown, command: Command) {
  return withContext(command, async (ctx) => {
    const { data, raw } = await (await ctx.rwa()).governance.getCredential({ params: { id: id } })
    ctx.out.result(raw, () => showCredential(ctx, data), [data.credential_id])
  })
}

export function issue(options: Record<string, unknown>, command: Command) {
  return withContext(command, async (ctx) => {
    const body = await requestFrom(ctx, options)
    const { data, raw } = await (await ctx.rwa()).governance.issueCredential({
      body: body as IssueCredentialRequest,
    })
    ctx.out.result(raw, () => {
      showCredential(ctx, data)
      ctx.out.success(`issued credential ${data.credential_id}`)
    }, [data.credential_id])
  })
}

export function revoke(id: string, options: Record<string, unknown>, command: Command) {
  return withContext(command, async (ctx) => {
    const body = await requestFrom(ctx, options)
    await confirmDestructive(
      ctx,
      `revoke credential ${id}`,
      'Tokens backed by it can no longer be transferred.',
    )
    const { data, raw } = await (await ctx.rwa()).governance.revokeCredential({
      params: { id: id },
      body: body,
    })
    ctx.out.result(raw, () => ctx.out.success(`revoked credential ${data.credential_id}`), [
      data.credential_id,
    ])
  })
}

/** A VC to verify from a file or stdin: a record carrying `vc_jwt`, or the compact VC-JWT itself. */
async function vcFromInput(source: string, ctx: CliContext): Promise<{ vcJwt: string; record?: VcRecord }> {
  const name = source === '-' ? 'stdin' : source
  const text = (await readInputFile(source, ctx)).trim()
  if (/^[\w-]+\.[\w-]+\.[\w-]+$/.test(text)) return { vcJwt: text }
  const json = parseJsonInput(
    text,
    source,
    'give a VC-JWT, or a record saved with `rwa credentials get ID --json > credential.json`',
  )
  const record = json as Partial<VcRecord> | null
  if (typeof record?.vc_jwt !== 'string') {
    throw new ExitError(
      EXIT.usage,
      `${name} has no vc_jwt: expected a credential or attestation record, or a bare VC-JWT`,
      'save a credential with `rwa credentials get ID --json > credential.json`',
    )
  }
  return { vcJwt: record.vc_jwt, record: record as VcRecord }
}

/**
 * `rwa credentials verify <cred_... | att_... | file | ->`: verifies a VC-JWT offline, the issuer's key
 * read from its did:key. Only an id needs the server (to fetch the record); a file needs nothing.
 * Exits 1 when the credential does not hold (bad signature, expired, edited record, revoked record).
 */
export function verify(source: string, _options: unknown, command: Command) {
  return withContext(command, async (ctx) => {
    const isId = source !== '-' && /^(cred|att)_/.test(source) && !existsSync(source)
    let input: { vcJwt: string; record?: VcRecord }
    if (isId) {
      const gov = (await ctx.rwa()).governance
      const { data } = source.startsWith('cred_')
        ? await gov.getCredential({ params: { id: source } })
        : await gov.getAttestation({ params: { id: source } })
      input = { vcJwt: data.vc_jwt, record: data }
    } else input = await vcFromInput(source, ctx)

    const signature = await verifyCredential(input.vcJwt, { record: input.record })
    const result = await withRevocationStatus(input.vcJwt, signature)
    const claims = result.claims
    const id = input.record?.credential_id ?? input.record?.attestation_id ?? claims?.jti ?? null
    const report = {
      id,
      type: claims?.type ?? null,
      issuer_did: claims?.iss ?? null,
      subject_did: claims?.sub ?? null,
      valid_from: claims?.validFrom ?? null,
      valid_until: claims?.validUntil ?? null,
      status: input.record?.status ?? null,
      valid: result.valid,
      ...(result.valid ? { notes: result.notes } : { reason: result.reason }),
    }
    ctx.out.result(report, () => {
      if (!claims) return
      ctx.out.record([
        ['id', id],
        ['type', claims.type.filter((t) => t !== 'VerifiableCredential').join(', ')],
        ['issuer_did', claims.iss],
        ['subject_did', claims.sub],
        ['jurisdiction', String(claims.credentialSubject?.jurisdiction ?? '')],
        ['valid_from', claims.validFrom],
        ['valid_until', claims.validUntil],
        ['status', input.record?.status],
      ])
      if (result.valid) {
        ctx.out.line(
          `${ctx.out.style.green('✓ credential holds')}: signed by its issuer's did:key, within its validity\n  ${result.notes.join('; ')}`,
        )
      }
    })
    if (!result.valid) {
      throw new ExitError(
        EXIT.unexpected,
        `${id ?? 'the credential'} does NOT hold: ${result.reason}`,
        isId
          ? undefined
          : 'an id (`rwa credentials verify cred_...`) fetches the record as the server holds it now',
      )
    }
  })
}

/**
 * Adds the status list's word to a credential whose signature holds: revoked there makes it fail;
 * an unreachable list (offline) or a credential issued before status lists is a note, not a failure.
 */
async function withRevocationStatus(
  vcJwt: string,
  result: Awaited<ReturnType<typeof verifyCredential>>,
): Promise<Awaited<ReturnType<typeof verifyCredential>>> {
  if (!result.valid) return result
  const status = await checkRevocation(vcJwt, fetchStatusList)
  if (status.status === 'revoked') {
    return {
      valid: false,
      reason: `revoked: bit ${status.statusListIndex} of its status list ${status.statusListCredential} is set`,
      claims: result.claims,
    }
  }
  const note =
    status.status === 'unknown'
      ? `revocation not checked by status list: ${status.reason}`
      : `not revoked per its status list (bit ${status.statusListIndex}, list signature verified)`
  return { ...result, notes: [...result.notes, note] }
}

/** Fetches a status list credential (public, no key). */
async function fetchStatusList(url: string): Promise<string> {
  const response = await fetch(url)
  if (!response.ok) throw new Error(`HTTP ${response.status}`)
  return response.text()
}

/**
 * `rwa credentials status <cred_... | att_... | file | ->`: whether a credential (or attestation) is
 * revoked, checked as any verifier would: its `credentialStatus` names a public status list, whose
 * signature is verified with the issuer's did:key before its bit is read. Exits 1 when revoked.
 */
export function status(source: string, _options: unknown, command: Command) {
  return withContext(command, async (ctx) => {
    let vcJwt: string
    if (source !== '-' && /^(cred|att)_/.test(source) && !existsSync(source)) {
      const gov = (await ctx.rwa()).governance
      vcJwt = (
        source.startsWith('cred_')
          ? await gov.getCredential({ params: { id: source } })
          : await gov.getAttestation({ params: { id: source } })
      ).data.vc_jwt
    } else {
      const text = (await readInputFile(source, ctx)).trim()
      vcJwt = text.startsWith('{') ? String((JSON.parse(text) as { vc_jwt?: unknown }).vc_jwt ?? '') : text
    }
    const result = await checkRevocation(vcJwt, fetchStatusList)
    ctx.out.result(result, () => {
      if (result.status === 'unknown') ctx.out.line(`status unknown: ${result.reason}`)
      else {
        const word = result.status === 'active' ? ctx.out.style.green('active') : ctx.out.style.red('revoked')
        ctx.out.line(
          `${word}: bit ${result.statusListIndex} of ${result.statusListCredential} (signature of the list verified)`,
        )
      }
    })
    if (result.status === 'revoked') {
      throw new ExitError(
        EXIT.unexpected,
        'the credential is revoked',
        'its issuer set its bit in the public status list',
      )
    }
  })
}
