import { z } from 'zod'
import { countrySchema, IDENTITY_CATEGORIES, storedCountrySchema } from './investors.js'

/*
 * The token rules that read investors' identities (docs/governance.md, "Rules that read identities";
 * docs/identities.md): who the recipient is, its country and category, and what an identity holds over
 * all its DIDs. Spread into the rules of rwa.ts: the token shows them, `PUT .../rules` sets them.
 */

/**
 * Countries of a rule: assigned codes in a request (countrySchema), any two upper-case letters in an
 * answer, which may show a rule stored before the list was checked (storedCountrySchema).
 */
type CountrySchema = typeof countrySchema | typeof storedCountrySchema
const countriesSchema = (country: CountrySchema) => z.array(country).min(1).max(250)

/** Percent with at most four decimals (0.0001 % steps), so that the cap in units is exact. */
const percentSchema = z
  .number()
  .min(0)
  .max(100)
  .refine((p) => Math.abs(p * 10_000 - Math.round(p * 10_000)) < 1e-6, 'expected at most four decimals')

/** The rules, each `null` when not set, with `country` the schema of each country named. */
const investorRulesShapeOf = (country: CountrySchema) => ({
  country_allow: countriesSchema(country)
    .nullable()
    .describe(
      "Only a recipient whose identity's country is listed may receive; a recipient without an identity may not",
    ),
  country_deny: countriesSchema(country)
    .nullable()
    .describe(
      "A recipient whose identity's country is listed may not receive; nor may a recipient without an identity",
    ),
  max_holders_per_country: z
    .record(country, z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER))
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
})

/** The rules as the token shows them. */
export const investorRulesShape = investorRulesShapeOf(storedCountrySchema)

/** The same rules in `PUT .../rules`, each country an assigned code: absent or null clears a rule. */
const requested = investorRulesShapeOf(countrySchema)
export const investorRulesRequestShape = {
  country_allow: requested.country_allow.optional(),
  country_deny: requested.country_deny.optional(),
  max_holders_per_country: requested.max_holders_per_country.optional(),
  max_ownership_percent: requested.max_ownership_percent.optional(),
  allowed_categories: requested.allowed_categories.optional(),
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
