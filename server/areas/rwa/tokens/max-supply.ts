/*
 * Rule `max_supply` (T-REX SupplyLimitModule): a mint may not take the supply over the cap; a burn
 * makes room. Transfers never change the supply, so the rule is no check of a transfer. Pure.
 */

/** What `max_supply` decides of a mint: the supply after it, and by how much it is over (≤ 0: within). */
export function maxSupplyDecision(
  maxSupply: number | null,
  supply: number,
  amount: number,
): { after: number; over: number; allowed: boolean } {
  const after = supply + amount
  const over = maxSupply === null ? 0 : after - maxSupply
  return { after, over, allowed: over <= 0 }
}
