import { z } from 'zod'
import { pageFields, pageQuery, timestampSchema } from './common.js'
import { issuerKeySchema, issuerStatusSchema } from './issuer-keys.js'
import { jurisdictionIdSchema, requirementNameSchema } from './rwa.js'

export { type IssuerKey, issuerKeySchema, issuerStatusSchema } from './issuer-keys.js'

/*
 * Trusted issuers (docs/issuers.md): the outside providers (KYC, AML, investor checks) whose credentials
 * an organization accepts, for which requirements (each met by credentials of the VC types listed for
 * it) and in which of its jurisdictions.
 */

/** An issuer's short code within the organization: `[a-z0-9_-]{2,32}`. */
export const issuerIdSchema = z
  .string()
  .regex(/^[a-z0-9_-]{2,32}$/, 'expected 2 to 32 lower-case letters, digits, "_" or "-"')
  .describe('Short code of the issuer, e.g. `acme-kyc`')

/** The DID of an issuer: a did:key of an Ed25519 key, or a did:web. */
export const issuerDidSchema = z
  .string()
  .max(512)
  .regex(
    /^did:(key:z[1-9A-HJ-NP-Za-km-z]+|web:[A-Za-z0-9.%-]+(:[A-Za-z0-9._%-]+)*)$/,
    'expected did:key:z… (an Ed25519 key) or did:web:<host>[:<path>…], e.g. did:web:kyc.example.com',
  )

/** A VC type such as `KYCCredential`. */
export const vcTypeSchema = z
  .string()
  .regex(/^[A-Za-z][A-Za-z0-9_.-]{0,99}$/, 'expected a VC type name, e.g. KYCCredential (max 100)')

const uniqueList = <T extends z.ZodType<string>>(item: T, max: number) =>
  z
    .array(item)
    .min(1)
    .max(max)
    .refine((list) => new Set(list).size === list.length, 'entries must not repeat')

/** `{ "<requirement>": ["<VC type>", ...] }`: which VC types of the issuer meet each requirement. */
export const issuerRequirementsSchema = z
  .record(requirementNameSchema, uniqueList(vcTypeSchema, 20))
  .refine((r) => Object.keys(r).length >= 1, 'expected at least one requirement')
  .refine((r) => Object.keys(r).length <= 50, 'expected at most 50 requirements')
  .describe(
    'The requirements the issuer is trusted for, each with the VC types that meet it, e.g. `{ "kyc": ["KYCCredential"] }`',
  )

const issuerJurisdictionsSchema = uniqueList(jurisdictionIdSchema, 100).describe(
  "The organization's jurisdictions that recognise the issuer's credentials",
)

const nameSchema = z.string().trim().min(1).max(200)

/** POST /console/rwa/issuers. */
export const registerIssuerRequestSchema = z.strictObject({
  issuer_id: issuerIdSchema,
  name: nameSchema.describe('Display name, e.g. the provider'),
  did: issuerDidSchema.describe(
    "The issuer's DID: did:key (Ed25519) or did:web (its document fetched at https://host/.well-known/did.json, or https://host/path/did.json)",
  ),
  requirements: issuerRequirementsSchema,
  jurisdictions: issuerJurisdictionsSchema,
  valid_until: timestampSchema.optional().describe('When the organization stops trusting the issuer'),
})

/** PATCH /console/rwa/issuers/{id}: the fields given are replaced. */
export const updateIssuerRequestSchema = z
  .strictObject({
    name: nameSchema.optional(),
    requirements: issuerRequirementsSchema.optional(),
    jurisdictions: issuerJurisdictionsSchema.optional(),
    valid_until: timestampSchema.nullable().optional().describe('null: trusted with no end'),
    status: z
      .enum(['active', 'suspended'])
      .optional()
      .describe('`suspended`: its credentials are refused and its attestations meet nothing until `active`'),
  })
  .refine((body) => Object.keys(body).length > 0, 'expected at least one field to change')

export const issuerSchema = z.object({
  issuer_id: z.string(),
  name: z.string(),
  did: z.string(),
  requirements: z.record(z.string(), z.array(z.string())),
  jurisdictions: z.array(z.string()),
  status: issuerStatusSchema,
  keys: z.array(issuerKeySchema).describe('Every Ed25519 key the DID ever had, kept for life'),
  created_at: timestampSchema,
  updated_at: timestampSchema,
  valid_until: timestampSchema.nullable(),
  resolved_at: timestampSchema.describe('When the DID was last resolved'),
})

export const issuerParamsSchema = z.object({ id: issuerIdSchema })

export const listIssuersQuerySchema = z.strictObject({
  ...pageQuery('iss'),
  jurisdiction: jurisdictionIdSchema.optional().describe('Only issuers recognised by this jurisdiction'),
  requirement: requirementNameSchema.optional().describe('Only issuers trusted for this requirement'),
  status: issuerStatusSchema.optional(),
})

export const listIssuersResponseSchema = z.object({ issuers: z.array(issuerSchema), ...pageFields })

export type RegisterIssuerRequest = z.infer<typeof registerIssuerRequestSchema>
export type UpdateIssuerRequest = z.infer<typeof updateIssuerRequestSchema>
export type Issuer = z.infer<typeof issuerSchema>
export type ListIssuersQuery = z.infer<typeof listIssuersQuerySchema>
export type ListIssuersResponse = z.infer<typeof listIssuersResponseSchema>

const EXAMPLE_DID = 'did:web:kyc.example.com'

export const registerIssuerRequestExample: RegisterIssuerRequest = {
  issuer_id: 'acme-kyc',
  name: 'Acme KYC',
  did: EXAMPLE_DID,
  requirements: { kyc: ['KYCCredential'], aml: ['AMLCredential'] },
  jurisdictions: ['US', 'SG'],
}

export const issuerExample: Issuer = {
  issuer_id: 'acme-kyc',
  name: 'Acme KYC',
  did: EXAMPLE_DID,
  requirements: { kyc: ['KYCCredential'], aml: ['AMLCredential'] },
  jurisdictions: ['US', 'SG'],
  status: 'active',
  keys: [
    {
      kid: `${EXAMPLE_DID}#key-1`,
      jwk: { kty: 'OKP', crv: 'Ed25519', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo' },
      first_seen_at: '2026-11-22T10:15:00.000Z',
      retired_at: null,
    },
  ],
  created_at: '2026-11-22T10:15:00.000Z',
  updated_at: '2026-11-22T10:15:00.000Z',
  valid_until: null,
  resolved_at: '2026-11-22T10:15:00.000Z',
}

export const updateIssuerRequestExample: UpdateIssuerRequest = { status: 'suspended' }
