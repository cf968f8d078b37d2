import { createHash } from 'node:crypto'
import { resolve } from 'node:path'
import type { Command } from 'commander'
import { type CliContext, withContext } from '../../context.js'
import { EXIT, ExitError } from '../../exit-error.js'
import { plural } from '../../output.js'
import { MAX_CHUNK, sendRows } from './batches.js'
import { type ImportKind, readRows } from './rows.js'
import { type ImportState, type RowResult, serverOf, startingState, stateDir, statePath } from './state.js'

/*
 * `rwa credentials import`, `rwa attestations import`, `rwa transfers import` (docs/batches.md,
 * "Imports from CSV"): the file's rows (./rows.ts) sent as batches (./batches.ts), resumable without
 * doing anything twice from the state kept on disk (./state.ts); Ctrl-C stops at once, losing nothing.
 */

/** `rwa <kind> import FILE.csv [--chunk-size N] [--again]`. */
export function importCsv(kind: ImportKind) {
  return (file: string, options: { chunkSize?: string; again?: boolean }, command: Command) =>
    withContext(command, async (ctx) => {
      const chunkSize = chunkSizeOf(options.chunkSize)
      if (ctx.options.idempotencyKey !== undefined)
        throw new ExitError(
          EXIT.usage,
          "--idempotency-key: an import names a key for each batch of rows itself (from the file's content and the rows), so that a run again replays what was done",
          'leave --idempotency-key out: running the same import again does nothing twice',
        )
      const { text, rows } = await readRows(kind, file)
      const hash = createHash('sha256').update(text).digest('hex')
      const rwa = await ctx.rwa()
      // The state is kept per server and organization: an import into another is an import of its own.
      const server = serverOf((await ctx.resolveConnection()).url)
      const self = (await rwa.billing.getKeySelf()).data
      const dir = stateDir(process.env)
      const fresh: ImportState = {
        version: 2,
        file: resolve(file),
        sha256: hash,
        kind,
        server,
        org_id: self.org_id,
        results: [],
        digests: [],
      }
      const path = statePath(dir, fresh)
      const state = await startingState(kind, file, rows, dir, fresh, options.again === true, (text) =>
        ctx.out.info(text),
      )
      // Each row counts as a request: by default a chunk takes at most half of the organization's minute.
      const size =
        chunkSize ?? Math.max(1, Math.min(MAX_CHUNK, Math.floor(self.limits.requests_per_minute / 2)))

      // Ctrl-C: what is done and what is in flight are on disk already (the chunk is written down before
      // it is sent), so stopping at once loses nothing; say how to go on.
      const interrupted = () => {
        ctx.out.progressDone()
        ctx.out.warn(
          `interrupted: ${state.results.length} of ${plural(rows.length, 'row')} done${state.pending ? ', a batch in flight' : ''}; run the same command again to go on (nothing done is done twice)`,
        )
        process.exit(EXIT.interrupted)
      }
      process.once('SIGINT', interrupted)
      try {
        await sendRows(ctx, rwa, { kind, file, hash, rows, state, path, size })
      } finally {
        process.off('SIGINT', interrupted)
      }
      ctx.out.progressDone()
      report(ctx, kind, file, state)
    })
}

/** `--chunk-size`: a whole number from 1 to 1,000. */
function chunkSizeOf(given: string | undefined): number | undefined {
  if (given === undefined) return undefined
  const size = Number(given)
  if (!Number.isInteger(size) || size < 1 || size > MAX_CHUNK)
    throw new ExitError(EXIT.usage, `--chunk-size: expected a whole number from 1 to ${MAX_CHUNK}`)
  return size
}

/** What an import did: the rows refused or rejected listed, a summary; exit 6 when there are any. */
function report(ctx: CliContext, kind: ImportKind, file: string, state: ImportState): void {
  const results: RowResult[] = state.results
  const failed = results.filter((r) => r.status >= 400)
  const rejected = results.filter((r) => r.decision === 'rejected')
  ctx.out.result(
    {
      file: state.file,
      rows: results.length,
      imported: results.length - failed.length,
      failed: failed.length,
      ...(kind === 'transfers' ? { rejected: rejected.length } : {}),
      results,
    },
    () => {
      const listed = results.filter((r) => r.status >= 400 || r.decision === 'rejected')
      if (listed.length > 0)
        ctx.out.table(
          ['line', 'status', 'reason', 'detail'],
          listed.map((r) => [r.line, r.status, r.reason, r.detail]),
        )
      const summary = `${kind}: ${results.length - failed.length} of ${plural(results.length, 'row')} imported from ${file}`
      const notes = [
        ...(failed.length > 0 ? [`${failed.length} refused`] : []),
        ...(rejected.length > 0 ? [`${rejected.length} rejected by compliance`] : []),
      ]
      if (notes.length === 0) ctx.out.success(summary)
      else ctx.out.info(`${summary}; ${notes.join(', ')} (listed above)`)
    },
    results.filter((r) => r.id !== null).map((r) => r.id as string),
  )
  if (failed.length > 0 || rejected.length > 0) process.exitCode = EXIT.rejected
}
