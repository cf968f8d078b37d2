import { z } from 'zod'
import { timestampSchema } from './common.js'

/*
 * A trusted issuer's key as the issuers API and the trust bundle both give it (docs/issuers.md, "Keys"):
 * kept here, below both, so the trust bundle (./rwa.ts) and the issuers' schemas (./issuers.ts) share it.
 */

/** An Ed25519 key of a trusted issuer's DID, kept for life. */
export const issuerKeySchema = z.object({
  kid: z.string().describe('`<did>#<fragment>`'),
  jwk: z
    .object({ kty: z.literal('OKP'), crv: z.literal('Ed25519'), x: z.string() })
    .describe('The Ed25519 public key'),
  first_seen_at: timestampSchema,
  retired_at: timestampSchema
    .nullable()
    .describe('When the key left the DID document: it still verifies what was signed before'),
})

/** What an organization says of a trusted issuer: `active`, `suspended`, or `removed` (kept, keys and all). */
export const issuerStatusSchema = z.enum(['active', 'suspended', 'removed'])

export type IssuerKey = z.infer<typeof issuerKeySchema>
