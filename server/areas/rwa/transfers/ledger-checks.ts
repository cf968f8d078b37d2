import type { ComplianceCheck } from '../../../../src/contract/rwa.js'

/*
 * The checks the token's own state makes: whether it may move at all (pause, a revoked credential),
 * whether the sender has the units, and whether an agent's freezes stop them. Pure.
 */

export const TOKEN_ACTIVE = 'token_active'
export const SUFFICIENT_HOLDING = 'sufficient_holding'
export const HOLDER_NOT_FROZEN = 'holder_not_frozen'
export const UNFROZEN_BALANCE = 'unfrozen_balance'

/** What the ledger holds that a transfer's evaluation needs (all before the transfer). */
export interface LedgerFacts {
  /** The sender's holding in the source ({0, 0} when it holds nothing there). */
  sender_holding: { amount: number; frozen_amount: number }
  /** A whole-holder freeze of the sender or of the recipient. */
  sender_frozen: boolean
  recipient_frozen: boolean
  /** The recipient's units of the token across every jurisdiction. */
  recipient_balance: number
  /** Holders with a non-zero holding in the target jurisdiction. */
  target_holders: number
  /** Whether the recipient is one of them. */
  recipient_holds_in_target: boolean
  /** The sender's approved volume of the token on the UTC day of the evaluation. */
  sender_volume_today: number
}

/** The transfer as the ledger checks see it. */
export interface Movement {
  token_id: string
  from_jurisdiction: string
  to_jurisdiction: string
  sender_did: string
  recipient_did: string
  amount: number
}

/** `token_active`: a paused token refuses every transfer; so does one frozen by its revoked credential. */
export function tokenActiveCheck(
  token: { token_id: string; status: string },
  jurisdiction: string,
): ComplianceCheck {
  const base = { requirement: TOKEN_ACTIVE, jurisdiction, evidence: token.token_id }
  if (token.status === 'active')
    return { ...base, satisfied: true, reason: `token ${token.token_id} is active` }
  if (token.status === 'paused') {
    return {
      ...base,
      satisfied: false,
      reason: `token is paused: ${token.token_id} refuses every transfer until an agent unpauses it`,
    }
  }
  return {
    ...base,
    satisfied: false,
    reason: `token ${token.token_id} is ${token.status} and cannot be transferred`,
  }
}

/** `sufficient_holding`: the sender holds at least the amount in the source. */
export function sufficientHoldingCheck(move: Movement, ledger: LedgerFacts): ComplianceCheck {
  const held = ledger.sender_holding.amount
  const where = `${move.sender_did} holds ${held} of ${move.token_id} in ${move.from_jurisdiction}`
  const ok = move.amount <= held
  return {
    requirement: SUFFICIENT_HOLDING,
    jurisdiction: move.from_jurisdiction,
    satisfied: ok,
    evidence: null,
    reason: ok
      ? `sender ${where}; ${move.amount} requested`
      : `sender ${where}, ${move.amount - held} short of the ${move.amount} requested`,
  }
}

/** `holder_not_frozen`: neither the sender nor the recipient is frozen for the token. */
export function holderNotFrozenCheck(move: Movement, ledger: LedgerFacts): ComplianceCheck {
  const frozen = [
    ...(ledger.sender_frozen ? [['sender', move.sender_did]] : []),
    ...(ledger.recipient_frozen && move.recipient_did !== move.sender_did
      ? [['recipient', move.recipient_did]]
      : []),
  ]
  return {
    requirement: HOLDER_NOT_FROZEN,
    jurisdiction: move.from_jurisdiction,
    satisfied: frozen.length === 0,
    evidence: frozen.length === 0 ? null : frozen.map(([, did]) => did).join(','),
    reason:
      frozen.length === 0
        ? `neither sender ${move.sender_did} nor recipient ${move.recipient_did} is frozen for ${move.token_id}`
        : `${frozen.map(([role, did]) => `${role} ${did}`).join(' and ')} ${frozen.length > 1 ? 'are' : 'is'} frozen for ${move.token_id}: a frozen holder can neither send nor receive it`,
  }
}

/**
 * `unfrozen_balance`, only when some of the sender's units in the source are frozen: the amount must
 * come from the units that are not.
 */
export function unfrozenBalanceCheck(move: Movement, ledger: LedgerFacts): ComplianceCheck | undefined {
  const { amount: held, frozen_amount: frozen } = ledger.sender_holding
  if (frozen === 0) return undefined
  const free = held - frozen
  const ok = move.amount <= free
  return {
    requirement: UNFROZEN_BALANCE,
    jurisdiction: move.from_jurisdiction,
    satisfied: ok,
    evidence: `frozen_amount=${frozen}`,
    reason: ok
      ? `${frozen} of the sender's ${held} units in ${move.from_jurisdiction} are frozen; the ${move.amount} requested come from the ${free} that are not`
      : `${frozen} of the sender's ${held} units in ${move.from_jurisdiction} are frozen: only ${free} can be sent, ${move.amount - free} fewer than the ${move.amount} requested`,
  }
}
