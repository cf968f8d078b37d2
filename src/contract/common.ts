import { z } from 'zod'

/** ISO 8601 timestamp in UTC, e.g. `2026-11-22T10:15:00.000Z`. */
export const timestampSchema = z.iso.datetime({
  offset: true,
  error: 'expected an ISO 8601 timestamp, e.g. 2027-06-30T00:00:00Z',
})

/** Plain date, `YYYY-MM-DD`. */
export const dateSchema = z.iso.date()

/** Organization identifier: letters, digits, `_`, `-` and `.`, starting with a letter or digit. */
export const orgIdSchema = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, 'expected letters, digits, "_", "-" or "." (max 64)')

/** Opaque identifier with a type prefix, e.g. `key_01JD...`. */
export const prefixedId = (prefix: string) =>
  z
    .string()
    .min(prefix.length + 1)
    .max(64)
    .startsWith(`${prefix}_`, `expected an id starting with "${prefix}_"`)

/** Query parameters shared by every governance list: `limit` (1–500, default 50) and `cursor`. */
export const pageQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(500).default(50),
  cursor: z.string().min(1).max(200).optional(),
})

/** The envelope fields of every governance list besides the plural array itself. */
export const pageFields = {
  total: z.number().int().nonnegative(),
  next_cursor: z.string().nullable(),
}
