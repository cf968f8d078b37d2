import { z } from 'zod'
import { IDENTITY_CATEGORIES } from './investor-categories.js'

/*
 * What an investor is said to be (docs/identities.md): its country and its category. One schema each,
 * for the identities that state them and the token rules that read them.
 */

export { IDENTITY_CATEGORIES, type IdentityCategory } from './investor-categories.js'

export const identityCategorySchema = z
  .enum(IDENTITY_CATEGORIES)
  .describe(`The investor category: ${IDENTITY_CATEGORIES.join(', ')}`)

/** ISO 3166-1 alpha-2: two upper-case letters. */
export const countrySchema = z
  .string()
  .regex(/^[A-Z]{2}$/, 'expected two upper-case letters (ISO 3166-1 alpha-2), e.g. US')
  .describe('ISO 3166-1 alpha-2 country code, e.g. `US`')
