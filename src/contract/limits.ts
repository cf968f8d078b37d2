import { z } from 'zod'

export const TIERS = ['free', 'pro', 'enterprise'] as const
export const tierSchema = z.enum(TIERS)
export type Tier = z.infer<typeof tierSchema>

/** "Unlimited" is encoded as the JSON string `"unlimited"`. */
export const UNLIMITED = 'unlimited' as const
const countOrUnlimited = z.union([z.number().int().nonnegative(), z.literal(UNLIMITED)])

export const limitsSchema = z.object({
  requests_per_day: countOrUnlimited,
  requests_per_minute: z.number().int().positive(),
  max_dids: countOrUnlimited,
  max_skills: countOrUnlimited,
})
export type Limits = z.infer<typeof limitsSchema>

/** The limits of each tier (README.md, "Trial, tiers and limits"). */
export const TIER_LIMITS: Readonly<Record<Tier, Limits>> = Object.freeze({
  free: { requests_per_day: 1_000, requests_per_minute: 60, max_dids: 100, max_skills: 10 },
  pro: { requests_per_day: 50_000, requests_per_minute: 500, max_dids: 10_000, max_skills: 500 },
  enterprise: {
    requests_per_day: UNLIMITED,
    requests_per_minute: 5_000,
    max_dids: UNLIMITED,
    max_skills: UNLIMITED,
  },
})

/** Length of the free trial an organization gets with its first `start_trial` key. */
export const FREE_TRIAL_DAYS = 14
/** Default window of the usage report. */
export const DEFAULT_USAGE_DAYS = 30
