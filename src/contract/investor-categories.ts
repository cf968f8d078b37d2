/*
 * The investor categories an identity may have (docs/identities.md), free of zod: the contract's schema
 * (investors.ts), the rules that read them and the console's page (which bundles no zod) read this one list.
 */

export const IDENTITY_CATEGORIES = [
  'retail',
  'professional',
  'accredited',
  'qualified',
  'institutional',
] as const

export type IdentityCategory = (typeof IDENTITY_CATEGORIES)[number]
