import type { Command } from 'commander'
import type { CliContext } from '../context.js'
import { withContext } from '../context.js'
import { readInputFile } from '../input.js'
import { plural } from '../output.js'
import { batchSender, executePlan, summarize } from '../manifest/execute.js'
import { parseManifest } from '../manifest/parse.js'
import { type Change, planManifest } from '../manifest/plan.js'

const SYMBOL: Record<Change['action'], string> = {
  create: '+',
  update: '~',
  replace: '±',
  unchanged: '=',
  revoked: '!',
}

function showChanges(ctx: CliContext, changes: readonly Change[]): void {
  const color = {
    create: ctx.out.style.green,
    update: ctx.out.style.yellow,
    replace: ctx.out.style.yellow,
    unchanged: ctx.out.style.dim,
    revoked: ctx.out.style.red,
  }
  ctx.out.table(
    ['mark', 'action', 'kind', 'name', 'id', 'fields'],
    changes.map((c) => [
      color[c.action](SYMBOL[c.action]),
      color[c.action](c.action),
      c.kind,
      c.name,
      c.id,
      c.fields?.join(', '),
    ]),
  )
}

/** What the summary says of the manifest's revoked credentials: kept revoked, not issued again. */
const revokedNote = (n: number): string =>
  n === 0
    ? ''
    : `; ${plural(n, 'credential')} revoked, not issued again (a revocation is for good; issue a replacement with rwa credentials issue if one is due)`

/** With -q: the id of each resource of the manifest that exists (after the apply, all of them). */
const ids = (changes: readonly Change[]): string[] =>
  changes.map((c) => c.id).filter((id): id is string => id !== null)

/** `rwa apply -f FILE|- [--dry-run]`. */
export function apply(options: { file: string; dryRun?: boolean }, command: Command) {
  return withContext(command, async (ctx) => {
    const source = options.file === '-' ? 'stdin' : options.file
    const manifest = parseManifest(await readInputFile(options.file, ctx), source)
    const rwa = await ctx.rwa()
    const plan = await planManifest(rwa, manifest)
    const pending = plan.filter((c) => c.action !== 'unchanged' && c.action !== 'revoked').length

    if (options.dryRun || pending === 0) {
      // The server's dry run: the whole batch runs for real and is rolled back, so what apply would
      // refuse (an unknown jurisdiction, a quota, a rule) is refused now, naming its entry.
      if (pending > 0) {
        await executePlan(plan, batchSender(rwa), true).finally(() => ctx.out.progressDone())
      }
      const changes = plan.map(
        ({ ops: _ops, ref: _ref, idFrom: _idFrom, entry: _entry, ...change }) => change,
      )
      const summary = summarize(changes)
      ctx.out.result(
        { dry_run: options.dryRun === true, changed: false, summary, changes },
        () => {
          showChanges(ctx, changes)
          if (pending === 0)
            ctx.out.success(
              `nothing to change: ${changes.length === 1 ? 'the one resource is' : `all ${changes.length} resources are`} up to date${revokedNote(summary.revoked)}`,
            )
          else
            ctx.out.info(
              `dry run: would create ${summary.create}, update ${summary.update}, replace ${summary.replace}; ${summary.unchanged} unchanged${revokedNote(summary.revoked)}. The server ran it and kept nothing.`,
            )
        },
        ids(changes),
      )
      return
    }

    ctx.out.progress(`applying ${plural(pending, 'change')} as one batch…`)
    const changes = await executePlan(plan, batchSender(rwa)).finally(() => ctx.out.progressDone())
    const summary = summarize(changes)
    ctx.out.result(
      { dry_run: false, changed: true, summary, changes },
      () => {
        showChanges(ctx, changes)
        ctx.out.success(
          `applied: created ${summary.create}, updated ${summary.update}, replaced ${summary.replace}; ${summary.unchanged} unchanged${revokedNote(summary.revoked)}`,
        )
      },
      ids(changes),
    )
  })
}
