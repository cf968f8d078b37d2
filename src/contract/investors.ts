import { z } from 'zod'

/*
 * What an investor is said to be (docs/identities.md): its country and its category. One schema each,
 * for the identities that state them and the token rules that read them.
 */

/** The investor categories an identity may have. */
export const IDENTITY_CATEGORIES = [
  'retail',
  'professional',
  'accredited',
  'qualified',
  'institutional',
] as const

export type IdentityCategory = (typeof IDENTITY_CATEGORIES)[number]

export const identityCategorySchema = z
  .enum(IDENTITY_CATEGORIES)
  .describe(`The investor category: ${IDENTITY_CATEGORIES.join(', ')}`)

/** ISO 3166-1 alpha-2: two upper-case letters. */
export const countrySchema = z
  .string()
  .regex(/^[A-Z]{2}$/, 'expected two upper-case letters (ISO 3166-1 alpha-2), e.g. US')
  .describe('ISO 3166-1 alpha-2 country code, e.g. `US`')
