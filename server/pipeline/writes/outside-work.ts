import { ScopedStorage } from '../../platform/scoped-storage.js'

/*
 * Work that must never run inside a transaction (docs/issuers.md, "Resolution"): a fetch from a trusted
 * issuer's server takes up to 10 s, and over SQLite a transaction holds the one connection every
 * organization reads and writes through (over PostgreSQL, a pooled connection and the write's row
 * locks). So code that needs such work while a transaction is open throws `OutsideWorkNeeded` with the
 * work; the transaction rolls back (nothing of it is kept), `withOutsideWork` does the work with no
 * transaction open, and runs the whole flow again, which now finds the work's result in `outside`
 * (kept for this flow only: a later request fetches again). Each round needs one more piece of work;
 * after `MAX_OUTSIDE_ROUNDS` the fetching code gives up (as a failed fetch).
 */

export const MAX_OUTSIDE_ROUNDS = 32

export class OutsideWorkNeeded extends Error {
  constructor(
    readonly what: string,
    readonly perform: () => Promise<void>,
  ) {
    super(`work outside the transaction needed first: ${what}`)
  }
}

/** A flow that may need outside work: what that work found, by key, and which round this is. */
export interface OutsideRound {
  readonly outside: Map<string, unknown>
  readonly round: number
}

const rounds = new ScopedStorage<OutsideRound>()

/** The round the current flow runs in, if it runs under `withOutsideWork`. */
export const currentRound = (): OutsideRound | undefined => rounds.getStore()

/** Runs `flow` (which opens its transaction), again after each piece of outside work it asks for. */
export async function withOutsideWork<T>(flow: () => Promise<T>): Promise<T> {
  if (currentRound()) return flow()
  const outside = new Map<string, unknown>()
  for (let round = 0; ; round++) {
    try {
      return await rounds.run({ outside, round }, flow)
    } catch (error) {
      if (!(error instanceof OutsideWorkNeeded)) throw error
      await error.perform()
    }
  }
}
