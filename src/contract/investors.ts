import { z } from 'zod'
import { COUNTRY_CODES } from './countries.js'
import { IDENTITY_CATEGORIES } from './investor-categories.js'

/*
 * What an investor is said to be (docs/identities.md): its country and its category. One schema each,
 * for the identities that state them and the token rules that read them.
 */

export { IDENTITY_CATEGORIES, type IdentityCategory } from './investor-categories.js'

export const identityCategorySchema = z
  .enum(IDENTITY_CATEGORIES)
  .describe(`The investor category: ${IDENTITY_CATEGORIES.join(', ')}`)

const COUNTRY_EXPECTED = 'expected an assigned ISO 3166-1 alpha-2 country code'
const TWO_LETTERS = /^[A-Z]{2}$/

/**
 * An assigned ISO 3166-1 alpha-2 code, or XK (./countries.ts): what an identity, a list's filter and the
 * rules that name countries take, since a code outside the list matches no identity (a rule naming it
 * would silently do nothing). Not a zod enum: a record keyed by an enum wants every key, and the OpenAPI
 * document and the CLI's help would spell out 250 values; they keep the pattern and the description.
 */
export const countrySchema = z
  .string()
  .regex(TWO_LETTERS, {
    message: `${COUNTRY_EXPECTED} (two upper-case letters), e.g. US`,
    abort: true,
  })
  .refine((code) => COUNTRY_CODES.has(code), {
    // Only two upper-case letters reach this, so the value is safe to repeat.
    error: (issue) => `${COUNTRY_EXPECTED}, e.g. US: ${String(issue.input)} is not one`,
  })
  .describe('An officially assigned ISO 3166-1 alpha-2 country code, or XK (Kosovo), e.g. `US`')

/**
 * A country as stored and answered: two upper-case letters. Identities and token rules stored before
 * countrySchema checked the list keep theirs (docs/identities.md, "Country codes"), so answers are not
 * held to the list, and a client reading them does not fail.
 */
export const storedCountrySchema = z
  .string()
  .regex(TWO_LETTERS, 'expected two upper-case letters (ISO 3166-1 alpha-2)')
  .describe('ISO 3166-1 alpha-2 country code, e.g. `US`')
