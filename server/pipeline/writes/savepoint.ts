import type { AppContext } from '../context.js'
import { currentWrite } from './change.js'

/**
 * Runs `fn` as a savepoint of the current write (server/pipeline/writes/run-write.ts). If it throws, what it
 * wrote rolls back, and so do the changes it recorded (they would have become audit events) and what it
 * left to do after the commit (telling other instances to forget a change that did not happen), and
 * what it appended to the log, so the write goes on as if it had never run: a batch's operation that
 * fails alone (docs/batches.md, "Atomic, each alone, dry run"), a dry run (appended, then rolled back).
 */
export async function inSavepoint<T>(ctx: AppContext, fn: () => Promise<T>): Promise<T> {
  const scope = currentWrite()
  if (!scope) throw new Error('inSavepoint outside a write')
  const changes = scope.changes.length
  const afterCommit = scope.afterCommit.length
  const appended = scope.appended
  try {
    return await ctx.db.transaction().execute(() => fn())
  } catch (error) {
    scope.changes.length = changes
    scope.afterCommit.length = afterCommit
    scope.appended = appended
    throw error
  }
}
