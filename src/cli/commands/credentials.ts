import type { Command } from 'commander'
import type { Credential, IssueCredentialRequest, ListCredentialsQuery } from '../../contract/rwa.js'
import type { CliContext } from '../context.js'
import { withContext } from '../context.js'
import { bodyFrom, confirmDestructive, fillRequired, parseNumber } from '../input.js'
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

interface ListOptions extends PageOptions {
  jurisdiction?: string
  ownerDid?: string
  status?: string
}

export function list(options: ListOptions, command: Command) {
  return withContext(command, async (ctx) => {
    const rwa = await ctx.rwa()
    const filters = {
      jurisdiction: options.jurisdiction,
      owner_did: options.ownerDid,
      status: options.status as ListCredentialsQuery['status'],
    }
    const listing = await fetchListing(ctx, 'credentials', options, (page) =>
      rwa.governance.listCredentials({ ...filters, ...page }),
    )
    ctx.out.result(listing.raw, () => {
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
      listFooter(ctx, listing, 'credentials')
    })
  })
}

export function get(id: string, _options: unknown, command: Command) {
  return withContext(command, async (ctx) => {
    const { data, raw } = await (await ctx.rwa()).governance.getCredential(id)
    ctx.out.result(raw, () => showCredential(ctx, data))
  })
}

interface IssueOptions {
  jurisdiction?: string
  ownerDid?: string
  address?: string
  type?: string
  valueUsd?: string
  titleDeed?: string
  validUntil?: string
  file?: string
}

export function issue(options: IssueOptions, command: Command) {
  return withContext(command, async (ctx) => {
    const body = await bodyFrom(ctx, options.file, {
      jurisdiction: options.jurisdiction,
      owner_did: options.ownerDid,
      'property_data.address': options.address,
      'property_data.type': options.type,
      'property_data.value_usd': parseNumber('--value-usd', options.valueUsd),
      'property_data.title_deed': options.titleDeed,
      valid_until: options.validUntil,
    })
    await fillRequired(ctx, body, [
      { path: 'jurisdiction', flag: '--jurisdiction', question: 'Issuing jurisdiction' },
      { path: 'owner_did', flag: '--owner-did', question: 'Owner DID (did:<method>:<organization>:<owner>)' },
      { path: 'property_data.address', flag: '--address', question: 'Property address' },
      { path: 'property_data.type', flag: '--type', question: 'Property type (e.g. commercial)' },
      {
        path: 'property_data.value_usd',
        flag: '--value-usd',
        question: 'Value in USD',
        parse: (a) => parseNumber('value', a),
      },
      { path: 'property_data.title_deed', flag: '--title-deed', question: 'Title deed reference' },
    ])
    const { data, raw } = await (await ctx.rwa()).governance.issueCredential(body as IssueCredentialRequest)
    ctx.out.result(raw, () => {
      showCredential(ctx, data)
      ctx.out.success(`issued credential ${data.credential_id}`)
    })
  })
}

export function revoke(id: string, options: { reason?: string }, command: Command) {
  return withContext(command, async (ctx) => {
    await confirmDestructive(
      ctx,
      `revoke credential ${id}`,
      'Tokens backed by it can no longer be transferred.',
    )
    const body = options.reason ? { reason: options.reason } : {}
    const { data, raw } = await (await ctx.rwa()).governance.revokeCredential(id, body)
    ctx.out.result(raw, () => ctx.out.success(`revoked credential ${data.credential_id}`))
  })
}
