import type { Command } from 'commander'
import type {
  Jurisdiction,
  RegisterJurisdictionRequest,
  UpdateJurisdictionRequest,
} from '../../contract/rwa.js'
import type { CliContext } from '../context.js'
import { withContext } from '../context.js'
import { confirmDestructive, requestFrom } from '../input.js'
import { fetchListing, listFooter, type PageOptions } from '../paging.js'

/** The options of `register` and `update`: flags/governance.ts JURISDICTIONS, and `--file`. */
type JurisdictionOptions = Record<string, unknown> & { file?: string }

/** Prints one jurisdiction as a record. */
export function showJurisdiction(ctx: CliContext, j: Jurisdiction): void {
  ctx.out.record([
    ['jurisdiction_id', j.jurisdiction_id],
    ['name', j.name],
    ['regulatory_body', j.regulatory_body],
    ['frameworks', j.frameworks.join(', ')],
    ['credential_types', j.credential_types.join(', ')],
    ['transfer_requirements', j.transfer_requirements.join(', ')],
    ['issuer_did', j.issuer_did],
    ['created_at', j.created_at],
    ['updated_at', j.updated_at],
  ])
}

export function list(options: PageOptions, command: Command) {
  return withContext(command, async (ctx) => {
    const rwa = await ctx.rwa()
    const listing = await fetchListing(ctx, 'jurisdictions', options, (query) =>
      rwa.governance.listJurisdictions({ query }),
    )
    ctx.out.result(
      listing.raw,
      () => {
        ctx.out.table(
          ['id', 'name', 'regulator', 'requirements', 'credential types'],
          listing.items.map((j) => [
            j.jurisdiction_id,
            j.name,
            j.regulatory_body,
            j.transfer_requirements.join(', '),
            j.credential_types.join(', '),
          ]),
        )
        listFooter(ctx, listing)
      },
      listing.items.map((j) => j.jurisdiction_id),
    )
  })
}

export function get(id: string, _options: unknown, command: Command) {
  return withContext(command, async (ctx) => {
    const { data, raw } = await (await ctx.rwa()).governance.getJurisdiction({ params: { id: id } })
    ctx.out.result(raw, () => showJurisdiction(ctx, data), [data.jurisdiction_id])
  })
}

export function register(options: JurisdictionOptions, command: Command) {
  return withContext(command, async (ctx) => {
    const body = await requestFrom(ctx, options)
    const { data, raw } = await (await ctx.rwa()).governance.registerJurisdiction({
      body: body as RegisterJurisdictionRequest,
    })
    ctx.out.result(raw, () => {
      showJurisdiction(ctx, data)
      ctx.out.success(`registered jurisdiction ${data.jurisdiction_id}`)
    }, [data.jurisdiction_id])
  })
}

/**
 * PUT replaces every mutable field, so without --file the current record is read first and only the
 * flags given change it.
 */
export function update(id: string, options: JurisdictionOptions, command: Command) {
  return withContext(command, async (ctx) => {
    const rwa = await ctx.rwa()
    let base: Record<string, unknown> = {}
    if (!options.file) {
      const { data: current } = await rwa.governance.getJurisdiction({ params: { id: id } })
      base = {
        name: current.name,
        regulatory_body: current.regulatory_body,
        frameworks: current.frameworks,
        credential_types: current.credential_types,
        transfer_requirements: current.transfer_requirements,
      }
    }
    const given = await requestFrom(ctx, options)
    const body = { ...base, ...given }
    const { data, raw } = await rwa.governance.updateJurisdiction({
      params: { id: id },
      body: body as UpdateJurisdictionRequest,
    })
    ctx.out.result(raw, () => {
      showJurisdiction(ctx, data)
      ctx.out.success(`updated jurisdiction ${data.jurisdiction_id}`)
    }, [data.jurisdiction_id])
  })
}

export function remove(id: string, _options: unknown, command: Command) {
  return withContext(command, async (ctx) => {
    await confirmDestructive(ctx, `remove jurisdiction ${id}`)
    const { data, raw } = await (await ctx.rwa()).governance.removeJurisdiction({ params: { id: id } })
    ctx.out.result(raw, () => ctx.out.success(`removed jurisdiction ${data.jurisdiction_id}`), [
      data.jurisdiction_id,
    ])
  })
}
