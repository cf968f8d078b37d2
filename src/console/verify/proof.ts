import canonicalizeModule from 'canonicalize'
import type { Proof, TrustBundle } from '../../contract/rwa.js'
import { jurisdictionsNamedBy, PROOF_JWS_TYPE, proofFacts } from '../../proof/facts.js'
import { issuerOf, trustedProofKey } from '../../proof/trust.js'
import { parseStrictJson } from '../../text/strict-json.js'
import { ed25519Verify, fromBase64Url, fromUtf8, sha256, toHex, utf8 } from './bytes.js'

/*
 * A compliance proof verified in the page (docs/console.md, "Verified in the browser"), against the
 * organization's trust bundle, with WebCrypto's Ed25519: the same checks as `rwa proofs verify --trust`
 * (src/proof/verify.ts), on the same facts (src/proof/facts.ts) and trust rules (src/proof/trust.ts),
 * so a proof the server altered, or one signed by a key outside the bundle, does not hold here either.
 */

// canonicalize ships CommonJS typed as a default export; bundled, the callable may sit on .default.
const canonicalize = ((canonicalizeModule as unknown as { default?: unknown }).default ??
  canonicalizeModule) as (input: unknown) => string | undefined

export type Verdict = { holds: true; notes: string[] } | { holds: false; reason: string }

const fail = (reason: string): Verdict => ({ holds: false, reason })

export async function verifyProofInPage(proof: Proof, bundle: TrustBundle): Promise<Verdict> {
  const trusted = trustedProofKey(bundle, proof.kid, proof.evaluated_at)
  if ('reason' in trusted) return fail(trusted.reason)

  const canonical = canonicalize(proofFacts(proof))
  if (canonical === undefined) return fail('the proof facts cannot be canonicalized')
  if (toHex(await sha256(utf8(canonical))) !== proof.digest) {
    return fail('digest does not match the evaluated facts')
  }

  const parts = proof.jws.split('.')
  if (parts.length !== 3) return fail('jws is not a compact JWS')
  const [headerPart, payloadPart, signaturePart] = parts as [string, string, string]
  const headerBytes = fromBase64Url(headerPart)
  const payload = fromBase64Url(payloadPart)
  const signature = fromBase64Url(signaturePart)
  if (!headerBytes || !payload || !signature) return fail('jws is not a compact JWS')
  let header: { alg?: unknown; typ?: unknown; kid?: unknown }
  try {
    header = parseStrictJson(fromUtf8(headerBytes)) as typeof header
    parseStrictJson(fromUtf8(payload))
  } catch (error) {
    return fail(`the JWS is refused: ${(error as Error).message}`)
  }
  if (header.alg !== 'EdDSA') return fail(`unexpected alg ${String(header.alg)} (EdDSA expected)`)
  if (header.typ !== PROOF_JWS_TYPE)
    return fail(`unexpected typ ${String(header.typ)} (${PROOF_JWS_TYPE} expected)`)
  if (header.kid !== proof.kid) return fail('the JWS kid differs from the proof kid')
  if (fromUtf8(payload) !== canonical) return fail('the signed payload differs from the evaluated facts')
  const x = fromBase64Url(trusted.key.x)
  if (!x || !(await ed25519Verify(x, signature, utf8(`${headerPart}.${payloadPart}`)))) {
    return fail('the JWS signature does not verify with the trust bundle’s key')
  }

  const notes = [`signed by ${proof.kid}, a proof key of organization ${bundle.org_id}'s trust bundle`]
  if (proof.version === undefined) {
    notes.push('version-1 proof: it signs neither its organization nor its issuers')
    return { holds: true, notes }
  }
  if (proof.org_id !== bundle.org_id) {
    return fail(`the proof was made for organization ${String(proof.org_id)}, not ${bundle.org_id}`)
  }
  const issuers = proof.issuers ?? {}
  const named = jurisdictionsNamedBy(proof)
  const signed = Object.keys(issuers).sort()
  if (signed.join(',') !== named.join(',')) {
    return fail(
      `the proof's issuers name ${signed.join(', ') || 'no jurisdiction'}, its facts ${named.join(', ')}`,
    )
  }
  for (const jurisdiction of named) {
    const expected = issuerOf(bundle, jurisdiction, proof.evaluated_at)
    if (issuers[jurisdiction] !== expected) {
      return fail(
        `the proof's issuer of ${jurisdiction} (${issuers[jurisdiction]}) is not the trust bundle's (${expected ?? 'none'})`,
      )
    }
  }
  notes.push(`made for organization ${bundle.org_id}, by the issuers of ${named.join(', ')}`)
  return { holds: true, notes }
}

/**
 * The first field in which a transfer as the API shows it differs from what its proof signed, or
 * undefined: the page shows the record, so it checks that the record is the signed one.
 */
export function transferDiffers(transfer: Record<string, unknown>, proof: Proof): string | undefined {
  if (!proof.transfer) return `proof ${proof.proof_id} is not a transfer's`
  const signed: Array<[string, unknown]> = [
    ['transfer_id', proof.transfer_id],
    ['status', proof.decision],
    ['proof_id', proof.proof_id],
    ['token_id', proof.token_id],
    ['from_jurisdiction', proof.transfer.from_jurisdiction],
    ['to_jurisdiction', proof.transfer.to_jurisdiction],
    ['sender_did', proof.transfer.sender_did],
    ['recipient_did', proof.transfer.recipient_did],
    ['amount', proof.transfer.amount],
    ['created_at', proof.evaluated_at],
    ['compliance_details', proof.compliance_details],
  ]
  for (const [field, value] of signed) {
    if (canonicalize(transfer[field]) !== canonicalize(value)) {
      return `the transfer's ${field} (${JSON.stringify(transfer[field])}) differs from its signed proof`
    }
  }
  return undefined
}
