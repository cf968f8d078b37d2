import { ApiError } from '../../../platform/errors.js'

/*
 * The arithmetic of a holding under an agent's freezes: how many units are frozen, what freezing or
 * unfreezing more does, and which units a forced move takes. Pure; the refusals are 409s.
 */

export interface HoldingUnits {
  amount: number
  frozen_amount: number
}

/** Freezes `units` more of a holding (T-REX freezePartialTokens); more than the holding is 409. */
export function freezeUnits(holding: HoldingUnits, units: number, where: string): HoldingUnits {
  const frozen = holding.frozen_amount + units
  if (frozen > holding.amount) {
    throw new ApiError(
      'frozen_units_exceed_holding',
      `Cannot freeze ${units} more units of ${where}: it holds ${holding.amount}, of which ${holding.frozen_amount} are frozen already (at most ${holding.amount - holding.frozen_amount} more can be frozen)`,
      { context: { amount: holding.amount, frozen_amount: holding.frozen_amount, requested: units } },
    )
  }
  return { amount: holding.amount, frozen_amount: frozen }
}

/** Unfreezes `units` of a holding (T-REX unfreezePartialTokens); more than are frozen is 409. */
export function unfreezeUnits(holding: HoldingUnits, units: number, where: string): HoldingUnits {
  if (units > holding.frozen_amount) {
    throw new ApiError(
      'frozen_units_insufficient',
      `Cannot unfreeze ${units} units of ${where}: only ${holding.frozen_amount} are frozen`,
      { context: { frozen_amount: holding.frozen_amount, requested: units } },
    )
  }
  return { amount: holding.amount, frozen_amount: holding.frozen_amount - units }
}

/**
 * The units a forced transfer takes from a holding: unfrozen ones first, then frozen ones (which stop
 * being frozen), as T-REX's forcedTransfer and ERC-7943 do. The caller has checked `amount <= holding`.
 */
export function takeUnits(
  holding: HoldingUnits,
  amount: number,
): { left: HoldingUnits; unfrozenTaken: number; frozenTaken: number } {
  const free = holding.amount - holding.frozen_amount
  const frozenTaken = Math.max(0, amount - free)
  return {
    left: { amount: holding.amount - amount, frozen_amount: holding.frozen_amount - frozenTaken },
    unfrozenTaken: amount - frozenTaken,
    frozenTaken,
  }
}
