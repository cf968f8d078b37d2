import { createPublicKey, type KeyObject } from 'node:crypto'
import { calculateJwkThumbprint } from 'jose'
import type { Jwks, TrustBundle } from '../../src/contract/rwa.js'
import { PROOF_JWS_TYPE } from '../../src/proof/verify.js'
import type { Clock } from '../clock.js'
import { isoTimestamp } from '../clock.js'
import type { Db } from '../db/database.js'
import { signCompactEdDsa } from './compact-jws.js'
import { jurisdictionKeyAad, serviceKeyAad } from './custody.js'
import { didKeyOf, generateSigningKey, importPrivateKey, verificationMethodOf } from './did-key.js'
import type { MasterKey } from './master-key.js'
import { findServiceKey, insertServiceKeyIfAbsent, listServiceKeys } from './queries.js'

/**
 * What a service key signs: `proof` the compliance proofs, `log` the checkpoints of the verifiable
 * log (DESIGN §17). Each is generated once per database and stored like the other.
 */
type ServicePurpose = 'proof' | 'log'

/** A jurisdiction as its key is stored: the row the sealed key is bound to. */
export interface IssuerRow {
  org_id: string
  jurisdiction_id: string
  issuer_did: string
  /** Sealed under the master key (server/signing/master-key.ts). */
  private_key: string
}

interface ServiceKey {
  kid: string
  key: KeyObject
  publicX: string
}

/**
 * The signing keys of governance: each jurisdiction's key (its private part stored with the
 * jurisdiction) and the service's proof key (generated once per database). Every private key is stored
 * sealed under the master key and bound to its row (DESIGN §15); it is decrypted into memory only, and
 * the imported KeyObjects are cached there, so a request signs without opening or parsing a key again.
 */
export class SigningKeys {
  private readonly issuers = new Map<string, KeyObject>()
  private readonly serviceKeys = new Map<ServicePurpose, Promise<ServiceKey>>()

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly masterKey: MasterKey,
  ) {}

  /**
   * A new key pair for jurisdiction `jurisdictionId` of `orgId`: its did:key and its private key sealed
   * for that row, as the jurisdiction row stores them.
   */
  newIssuerKey(orgId: string, jurisdictionId: string): { issuer_did: string; private_key: string } {
    const generated = generateSigningKey()
    const row = { org_id: orgId, jurisdiction_id: jurisdictionId, issuer_did: generated.did }
    const private_key = this.masterKey.seal(
      Buffer.from(generated.privateKey, 'base64'),
      jurisdictionKeyAad(row),
    )
    return { issuer_did: generated.did, private_key }
  }

  /** The KeyObject of an issuer, opened from its row (and checked against its did:key once). */
  issuerKey(issuer: IssuerRow): KeyObject {
    let key = this.issuers.get(issuer.issuer_did)
    if (!key) {
      const what = `the key of jurisdiction ${issuer.jurisdiction_id} of ${issuer.org_id}`
      const der = this.masterKey.open(issuer.private_key, jurisdictionKeyAad(issuer), what)
      key = importPrivateKey(der)
      const x = createPublicKey(key).export({ format: 'jwk' }).x!
      if (didKeyOf(Buffer.from(x, 'base64url')) !== issuer.issuer_did)
        throw new Error(`${what} is inconsistent`)
      this.issuers.set(issuer.issuer_did, key)
    }
    return key
  }

  /**
   * Signs a W3C VC 2.0 credential as a JOSE JWT (`typ: vc+jwt`, EdDSA) with the issuer's key; the
   * JWT claims iss/sub/jti/iat mirror the credential so generic JWT tooling reads it too.
   */
  async signCredential(
    issuer: IssuerRow,
    credential: { id: string; subject: string; issuedAt: number; [claim: string]: unknown },
  ): Promise<string> {
    const { id, subject, issuedAt, ...vc } = credential
    // The claims in the order jose's SignJWT wrote them (the credential, then iss, sub, jti, iat).
    const did = issuer.issuer_did
    const claims = { ...vc, id, iss: did, sub: subject, jti: id, iat: Math.floor(issuedAt / 1000) }
    const header = { alg: 'EdDSA', typ: 'vc+jwt', kid: verificationMethodOf(did) } as const
    return signCompactEdDsa(header, JSON.stringify(claims), this.issuerKey(issuer))
  }

  /**
   * Loads (or creates) the service key. Call it before opening a transaction that signs a proof: the
   * first load reads the database, which a transaction on the one SQLite connection would block.
   */
  async prepareProofKey(): Promise<void> {
    await this.service()
  }

  /** Signs the canonical bytes of a proof's facts with the service key: a compact EdDSA JWS. */
  async signProof(canonical: string): Promise<{ jws: string; kid: string }> {
    const { kid, key } = await this.service()
    return { jws: signCompactEdDsa({ alg: 'EdDSA', kid, typ: PROOF_JWS_TYPE }, canonical, key), kid }
  }

  /** The log key (DESIGN §17): it signs the checkpoints of every organization's log. */
  logKey(): Promise<ServiceKey> {
    return this.service('log')
  }

  /** The public JWKS of the service's keys: the proof key(s) and the log key. */
  async jwks(): Promise<Jwks> {
    const keys = [await this.service(), await this.service('log')]
    return {
      keys: keys.map(({ kid, publicX }) => ({
        kty: 'OKP',
        crv: 'Ed25519',
        x: publicX,
        kid,
        alg: 'EdDSA',
        use: 'sig',
      })),
    }
  }

  /**
   * Every proof key with its validity, for a trust bundle: retired keys too (a proof keeps verifying
   * with the key that signed it). Today one key signs all proofs, from its creation on; a key retired
   * by a rotation would carry `valid_until`.
   */
  async proofKeys(): Promise<TrustBundle['proof_keys']> {
    await this.service()
    const rows = await listServiceKeys(this.db, 'proof')
    return {
      keys: rows.map((row) => ({
        kty: 'OKP' as const,
        crv: 'Ed25519' as const,
        x: row.public_x,
        kid: row.kid,
        alg: 'EdDSA' as const,
        use: 'sig' as const,
        valid_from: row.created_at,
        valid_until: row.retired_at,
      })),
    }
  }

  private service(purpose: ServicePurpose = 'proof'): Promise<ServiceKey> {
    let key = this.serviceKeys.get(purpose)
    if (!key) {
      key = this.loadOrCreateServiceKey(purpose).catch((error) => {
        this.serviceKeys.delete(purpose)
        throw error
      })
      this.serviceKeys.set(purpose, key)
    }
    return key
  }

  private async loadOrCreateServiceKey(purpose: ServicePurpose): Promise<ServiceKey> {
    const load = () => findServiceKey(this.db, purpose)
    let row = await load()
    if (!row) {
      const generated = generateSigningKey()
      const kid = await calculateJwkThumbprint({ kty: 'OKP', crv: 'Ed25519', x: generated.publicX })
      // Another process sharing the database may have created it first: then its key wins.
      const sealed = this.masterKey.seal(
        Buffer.from(generated.privateKey, 'base64'),
        serviceKeyAad({ kid, purpose }),
      )
      await insertServiceKeyIfAbsent(this.db, {
        kid,
        purpose,
        private_key: sealed,
        public_x: generated.publicX,
        created_at: isoTimestamp(this.clock.now()),
        retired_at: null,
      })
      row = await load()
      if (!row) throw new Error(`the ${purpose} signing key could not be stored`)
    }
    const der = this.masterKey.open(row.private_key, serviceKeyAad(row), `service key ${row.kid}`)
    const key = importPrivateKey(der)
    // Guard against a stored public half that does not match the private key.
    const x = createPublicKey(key).export({ format: 'jwk' }).x
    if (x !== row.public_x) throw new Error(`${purpose} signing key ${row.kid} is inconsistent`)
    return { kid: row.kid, key, publicX: row.public_x }
  }
}
