import type { RotatedSigningKey, RotateSigningKeyRequest } from '../../../src/contract/rwa.js'
import { ADMIN_ORG_ID } from '../../pipeline/auth/principal.js'
import type { AppContext } from '../../pipeline/context.js'

/**
 * Rotates the proof-signing key (README.md, "Signing keys at rest"): a new key signs every proof from now on,
 * on every instance (`signing-keys` tells the others, and each proof reads the active key in its own
 * transaction); the retired key stays in the JWKS and the trust bundles, so the proofs it signed keep
 * verifying. The key belongs to the service, so the event is in the operator organization's log.
 */
export async function rotateSigningKey(
  ctx: AppContext,
  input: RotateSigningKeyRequest,
): Promise<RotatedSigningKey> {
  const rotated = await ctx.db.transaction().execute((trx) => ctx.signingKeys.rotateProofKey(trx))
  ctx.record({
    orgId: ADMIN_ORG_ID,
    action: 'signing_key.rotated',
    target: { type: 'signing_key', id: rotated.kid },
    before: { kid: rotated.retiredKid },
    after: { kid: rotated.kid, ...(input.reason === undefined ? {} : { reason: input.reason }) },
  })
  ctx.invalidate({ kind: 'signing-keys' })
  return {
    kid: rotated.kid,
    valid_from: rotated.at,
    retired: { kid: rotated.retiredKid, retired_at: rotated.at },
  }
}
