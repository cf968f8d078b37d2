import { ApiError } from '../../../platform/errors.js'

/*
 * Suspension of the organization's own credentials and attestations (docs/governance.md,
 * "Suspension"): a suspended record is relied on by nothing until it is reinstated; revocation stays
 * final (a suspended record may be revoked, a revoked one is neither suspended nor reinstated). Plain
 * rules: the services apply them in their transactions.
 */

export type SuspensionChange = 'suspend' | 'reinstate'

/** What a rule needs of a record: its stored status and its suspension. */
export interface SuspendableRow {
  status: string
  revoked_at: string | null
  suspended_at: string | null
}

const REASONS = {
  credential: {
    revoked: 'credential_revoked',
    already: 'credential_already_suspended',
    not: 'credential_not_suspended',
  },
  attestation: {
    revoked: 'attestation_revoked',
    already: 'attestation_already_suspended',
    not: 'attestation_not_suspended',
  },
} as const

/** Why `change` cannot be made to the record (409), or undefined when it can. */
export function suspensionRefusal(
  kind: 'credential' | 'attestation',
  id: string,
  row: SuspendableRow,
  change: SuspensionChange,
): ApiError | undefined {
  const context = { [`${kind}_id`]: id }
  const Kind = kind === 'credential' ? 'Credential' : 'Attestation'
  const reasons = REASONS[kind]
  if (row.status === 'revoked') {
    return new ApiError(
      reasons.revoked,
      `${Kind} ${id} was revoked at ${row.revoked_at}: revocation is final, it can be neither suspended nor reinstated`,
      { context: { ...context, revoked_at: row.revoked_at } },
    )
  }
  if (change === 'suspend' && row.suspended_at) {
    return new ApiError(reasons.already, `${Kind} ${id} is suspended already, since ${row.suspended_at}`, {
      context: { ...context, suspended_at: row.suspended_at },
    })
  }
  if (change === 'reinstate' && !row.suspended_at) {
    return new ApiError(
      reasons.not,
      `${Kind} ${id} is not suspended: only a suspended ${kind} is reinstated`,
      { context },
    )
  }
  return undefined
}
