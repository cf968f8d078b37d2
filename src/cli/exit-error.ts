/**
 * Exit codes of the rwa CLI, documented in README and `rwa --help`.
 */
export const EXIT = {
  ok: 0,
  unexpected: 1,
  usage: 2,
  auth: 3,
  notFound: 4,
  conflict: 5,
  rejected: 6,
  unreachable: 7,
  /**
   * A verification that does not hold (docs/cli.md, "Errors and exit codes"): bad signature, untrusted
   * issuer, tampered record, revoked, stale or missing status.
   */
  verification: 8,
  /** Ctrl-C at a prompt: 128 + SIGINT, as shells report an interrupted program. */
  interrupted: 130,
} as const

/** Thrown by any command to end the program with `code` after printing `message` (and `hint`) to stderr. */
export class ExitError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly hint?: string,
  ) {
    super(message)
    this.name = 'ExitError'
  }
}
