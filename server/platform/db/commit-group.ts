/*
 * The group commit of SQLite's writes (docs/performance.md, "Eighth pass: the group commit"). SQLite has
 * one connection, and a write holds it from its `begin` to its `commit`; the writes that arrive meanwhile
 * wait for it. Each then paid a commit of its own: a quarter of a single POST's time, the same pages
 * written to the WAL again by every transaction. So the writes that find a transaction of other writes
 * still open join it, each in a savepoint of its own (a failed one rolls back alone), and one commit,
 * once the writes queued behind them have had their turn, makes them all durable at once. A write's
 * commit still resolves only after that commit: nothing answers before its change is durable.
 */

/** A transaction of several writes, open on SQLite's connection until it commits. */
export interface CommitGroup {
  /** Settles when the group's commit has run: rejected when it failed (every write of it failed). */
  readonly done: Promise<void>
  resolve(): void
  reject(error: unknown): void
}

export function openCommitGroup(): CommitGroup {
  let resolve!: () => void
  let reject!: (error: unknown) => void
  const done = new Promise<void>((yes, no) => {
    resolve = yes
    reject = no
  })
  // Its writes each await `done`; a group whose every write rolled back has no one to tell.
  done.catch(() => {})
  return { done, resolve, reject }
}

/** The savepoint a write joining an open group runs in (a write's own savepoints are `rwa_nested_*`). */
export const GROUPED_SAVEPOINT = 'rwa_grouped'
