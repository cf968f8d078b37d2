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

/** The time-sortable part of every id the service makes: a ULID, 26 Crockford base32 characters. */
const ULID = '[0-9A-HJKMNP-TV-Z]{26}'

/**
 * Query parameters shared by every governance list: `limit` (1–500, default 50) and `cursor`. A cursor
 * is the `next_cursor` of the previous page: the id of its last row, whose type prefix is the list's
 * own (`cursorPrefix`), so a malformed cursor or one from another list is refused (400 naming
 * `cursor`) rather than read as a position.
 */
export const pageQuery = (cursorPrefix: string) => ({
  limit: z.coerce.number().int().min(1).max(500).default(50),
  cursor: z
    .string()
    .regex(
      new RegExp(`^${cursorPrefix}_${ULID}$`),
      `expected the next_cursor of a previous page of this list (${cursorPrefix}_ and 26 characters)`,
    )
    .optional()
    .describe("The previous page's `next_cursor`"),
})

/** The envelope fields of every governance list besides the plural array itself. */
export const pageFields = {
  total: z.number().int().nonnegative(),
  next_cursor: z.string().nullable(),
}
