import { z } from 'zod'
import { pageFields, pageQuery, timestampSchema } from './common.js'
import { countrySchema, identityCategorySchema } from './investors.js'
import { didSchema } from './rwa.js'

/*
 * Investors' identities (docs/identities.md): the DIDs of one investor, its country and category. A DID
 * belongs to at most one identity of an organization.
 */

/** An identity's id: `idn_…` as the service makes it, or one its creator chose. */
export const identityIdSchema = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/,
    'expected letters, digits, "_", "-" or ".", starting with a letter or digit (max 64)',
  )
  .describe('The identity id, e.g. `idn_01JD…` or one chosen at creation such as `investor-42`')

/** The most DIDs one request names (and one identity has). */
export const MAX_IDENTITY_DIDS = 100

const didList = (min: number) =>
  z
    .array(didSchema)
    .min(min)
    .max(MAX_IDENTITY_DIDS)
    .refine((list) => new Set(list).size === list.length, 'entries must not repeat')

/** POST /console/rwa/identities. */
export const createIdentityRequestSchema = z.strictObject({
  identity_id: identityIdSchema.optional().describe('Absent: the service makes an `idn_…` id'),
  dids: didList(1).describe('The DIDs of the investor; none may be in another identity of the organization'),
  country: countrySchema,
  category: identityCategorySchema.optional(),
})

/** PATCH /console/rwa/identities/{id}: the fields given are replaced. */
export const updateIdentityRequestSchema = z
  .strictObject({
    country: countrySchema.optional(),
    category: identityCategorySchema.nullable().optional().describe('null: no category'),
  })
  .refine((body) => Object.keys(body).length > 0, 'expected at least one field to change (country, category)')

/** POST /console/rwa/identities/{id}/dids. */
export const changeIdentityDidsRequestSchema = z
  .strictObject({
    add: didList(0).default([]).describe('DIDs to add (none may be in another identity)'),
    remove: didList(0).default([]).describe('DIDs of the identity to remove (each is then free for another)'),
  })
  .refine((body) => body.add.length + body.remove.length > 0, 'expected a DID to add or remove')
  .refine((body) => !body.add.some((did) => body.remove.includes(did)), {
    path: ['remove'],
    message: 'a DID cannot be both added and removed',
  })

export const identitySchema = z.object({
  identity_id: z.string(),
  dids: z.array(z.string()).describe('Its DIDs, oldest first'),
  country: z.string(),
  category: identityCategorySchema.nullable(),
  created_at: timestampSchema,
  updated_at: timestampSchema,
})

export const identityParamsSchema = z.object({ id: identityIdSchema })

export const listIdentitiesQuerySchema = z.strictObject({
  ...pageQuery('idn'),
  country: countrySchema.optional().describe('Only identities of this country'),
  category: identityCategorySchema.optional().describe('Only identities of this category'),
  did: didSchema.optional().describe('Only the identity this DID belongs to'),
})

export const listIdentitiesResponseSchema = z.object({ identities: z.array(identitySchema), ...pageFields })

export type IdentityCategory = z.infer<typeof identityCategorySchema>
export type CreateIdentityRequest = z.infer<typeof createIdentityRequestSchema>
export type UpdateIdentityRequest = z.infer<typeof updateIdentityRequestSchema>
export type ChangeIdentityDidsRequest = z.infer<typeof changeIdentityDidsRequestSchema>
export type Identity = z.infer<typeof identitySchema>
export type ListIdentitiesQuery = z.infer<typeof listIdentitiesQuerySchema>
export type ListIdentitiesResponse = z.infer<typeof listIdentitiesResponseSchema>

export const createIdentityRequestExample: CreateIdentityRequest = {
  dids: ['did:web:acme:alice', 'did:web:acme:alice-cold'],
  country: 'US',
  category: 'accredited',
}

export const identityExample: Identity = {
  identity_id: 'idn_01JD5Z8Q4N7T0000000000ABCD',
  dids: ['did:web:acme:alice', 'did:web:acme:alice-cold'],
  country: 'US',
  category: 'accredited',
  created_at: '2026-11-22T10:15:00.000Z',
  updated_at: '2026-11-22T10:15:00.000Z',
}

export const updateIdentityRequestExample: UpdateIdentityRequest = { category: 'qualified' }

export const changeIdentityDidsRequestExample = {
  add: ['did:web:acme:alice-new'],
  remove: ['did:web:acme:alice-cold'],
}

// ── Holders: a token's holdings grouped by identity ─────────────────────────

/** GET /console/rwa/tokens/{id}/holders. */
export const listHoldersQuerySchema = z.strictObject({
  limit: pageQuery('idn').limit,
  // Groups have no id: the cursor is the last group shown, encoded.
  cursor: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,1400}$/, 'expected the next_cursor of a previous page of this list')
    .optional()
    .describe("The previous page's `next_cursor`"),
})

export const holderSchema = z.object({
  identity_id: z.string().nullable().describe('null: a DID of no identity, alone'),
  country: z.string().nullable().describe("The identity's country (null for a lone DID)"),
  category: identityCategorySchema.nullable(),
  total: z.number().int().positive().describe('Units held over all its DIDs and jurisdictions'),
  dids: z
    .array(z.object({ holder_did: z.string(), amount: z.number().int().positive() }))
    .describe('Each DID holding units, with its units over all jurisdictions'),
})

export const listHoldersResponseSchema = z.object({ holders: z.array(holderSchema), ...pageFields })

export type Holder = z.infer<typeof holderSchema>
export type ListHoldersQuery = z.infer<typeof listHoldersQuerySchema>
export type ListHoldersResponse = z.infer<typeof listHoldersResponseSchema>

export const listHoldersResponseExample: ListHoldersResponse = {
  holders: [
    {
      identity_id: identityExample.identity_id,
      country: 'US',
      category: 'accredited',
      total: 250,
      dids: [
        { holder_did: 'did:web:acme:alice', amount: 200 },
        { holder_did: 'did:web:acme:alice-cold', amount: 50 },
      ],
    },
    {
      identity_id: null,
      country: null,
      category: null,
      total: 40,
      dids: [{ holder_did: 'did:web:lion:bob', amount: 40 }],
    },
  ],
  total: 2,
  next_cursor: null,
}
