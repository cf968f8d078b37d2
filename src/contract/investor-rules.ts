import { z } from 'zod'
import { countrySchema, IDENTITY_CATEGORIES } from './investors.js'

/*
 * The token rules that read investors' identities (docs/governance.md, "Rules that read identities";
 * docs/identities.md): who the recipient is, its country and category, and what an identity holds over
 * all its DIDs. Spread into the rules of rwa.ts: the token shows them, `PUT .../rules` sets them.
 */

const countriesSchema = z.array(countrySchema).min(1).max(250)

/** Percent with at most four decimals (0.0001 % steps), so that the cap in units is exact. */
const percentSchema = z
  .number()
  .min(0)
  .max(100)
  .refine((p) => Math.abs(p * 10_000 - Math.round(p * 10_000)) < 1e-6, 'expected at most four decimals')

/** The rules themselves, each `null` when not set (as the token shows them). */
export const investorRulesShape = {
  country_allow: countriesSchema
    .nullable()
    .describe(
      "Only a recipient whose identity's country is listed may receive; a recipient without an identity may not",
    ),
  country_deny: countriesSchema
    .nullable()
    .describe(
      "A recipient whose identity's country is listed may not receive; nor may a recipient without an identity",
    ),
  max_holders_per_country: z
    .record(countrySchema, z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER))
    .nullable()
    .describe(
      'Identities (not DIDs) holding a non-zero amount, per country of the identity: `{ "US": 2000 }`; a transfer making a new holder identity past the cap fails',
    ),
  max_ownership_percent: percentSchema
    .nullable()
    .describe(
      "An identity's total over all its DIDs and jurisdictions after the transfer, as a percent of the token's supply, may not exceed it",
    ),
  allowed_categories: z
    .array(z.enum(IDENTITY_CATEGORIES))
    .min(1)
    .nullable()
    .describe("Only a recipient whose identity's category is listed may receive"),
}

/** The same rules in `PUT .../rules`: absent or null clears a rule. */
export const investorRulesRequestShape = {
  country_allow: investorRulesShape.country_allow.optional(),
  country_deny: investorRulesShape.country_deny.optional(),
  max_holders_per_country: investorRulesShape.max_holders_per_country.optional(),
  max_ownership_percent: investorRulesShape.max_ownership_percent.optional(),
  allowed_categories: investorRulesShape.allowed_categories.optional(),
}

/** None of them set. */
export const NO_INVESTOR_RULES = {
  country_allow: null,
  country_deny: null,
  max_holders_per_country: null,
  max_ownership_percent: null,
  allowed_categories: null,
} as const

const investorRulesSchema = z.object(investorRulesShape)
export type InvestorRules = z.infer<typeof investorRulesSchema>
export type InvestorCategory = (typeof IDENTITY_CATEGORIES)[number]

/** The investor rules of a `PUT .../rules` body, each null when absent; lists keep their first order, once each. */
export function investorRulesOf(
  given: Partial<{ [K in keyof InvestorRules]: InvestorRules[K] | undefined }>,
): InvestorRules {
  const once = <T>(list: readonly T[] | null | undefined) => (list ? [...new Set(list)] : null)
  return {
    country_allow: once(given.country_allow),
    country_deny: once(given.country_deny),
    max_holders_per_country: given.max_holders_per_country ?? null,
    max_ownership_percent: given.max_ownership_percent ?? null,
    allowed_categories: once(given.allowed_categories),
  }
}
