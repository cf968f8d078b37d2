import { createPublicKey, type KeyObject } from 'node:crypto'
import { calculateJwkThumbprint } from 'jose'
import type { Jwks, TrustBundle } from '../../../src/contract/rwa.js'
import { PROOF_JWS_TYPE } from '../../../src/proof/verify.js'
import type { Clock } from '../clock.js'
import { isoTimestamp } from '../clock.js'
import type { Db } from '../db/database.js'
import type { Executor } from '../db/queries.js'
import { signCompactEdDsa } from './compact-jws.js'
import { didKeyOf, generateSigningKey, importPrivateKey, verificationMethodOf } from './did-key.js'
import type { MasterKey } from './master-key.js'
import {
  findServiceKey,
  insertServiceKey,
  insertServiceKeyIfAbsent,
  listServiceKeys,
  retireServiceKey,
} from './queries.js'

/**
 * The additional data a key is sealed with: the row it belongs to, so a ciphertext moved to another
 * row (another jurisdiction, another organization, another proof key) does not open there.
 */
export const jurisdictionKeyAad = (row: { org_id: string; jurisdiction_id: string; issuer_did: string }) =>
  JSON.stringify(['jurisdictions', row.org_id, row.jurisdiction_id, row.issuer_did])
export const serviceKeyAad = (row: { kid: string; purpose: string }) =>
  JSON.stringify(['rwa_service_keys', row.kid, row.purpose])

/**
 * What a service key signs: `proof` the compliance proofs, `log` the checkpoints of the verifiable
 * log (docs/governance.md, "The verifiable log"). Each is generated once per database and stored
 * like the other.
 */
type ServicePurpose = 'proof' | 'log'

/** A jurisdiction as its key is stored: the row the sealed key is bound to. */
export interface IssuerRow {
  org_id: string
  jurisdiction_id: string
  issuer_did: string
  /** Sealed under the master key (server/platform/signing/master-key.ts). */
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
 * sealed under the master key and bound to its row (README.md, "Signing keys at rest"); it is decrypted into
 * memory only, and the imported KeyObjects are cached there, so a request signs without opening or parsing a
 * key again.
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
   * Loads, or creates and stores, the proof key and the log key. A start calls it before serving: made
   * lazily inside the first write that signs, a key would vanish with that write's rollback while this
   * process kept signing with it, so its proofs would verify against no published key.
   */
  async ensureServiceKeys(): Promise<void> {
    await this.service('proof')
    await this.service('log')
  }

  /**
   * Loads (or creates) the service key. Call it before opening a transaction that signs a proof: the
   * first load reads the database, which a transaction on the one SQLite connection would block.
   */
  async prepareProofKey(): Promise<void> {
    await this.service()
  }

  /**
   * Signs the canonical bytes of a proof's facts with the active proof key: a compact EdDSA JWS. Given
   * the proof's transaction, it reads which key is active now, locking it (PostgreSQL) until the proof
   * commits: another instance may have rotated since this one cached its key, and a rotation waits for
   * the proofs signed with the key it retires, so none is signed by a key already retired.
   */
  async signProof(canonical: string, trx?: Executor): Promise<{ jws: string; kid: string }> {
    let service = await this.service()
    if (trx) {
      const active = await findServiceKey(trx, 'proof', 'key share')
      // Never sign with a key no row holds: a verifier could find it nowhere.
      if (!active) throw new Error('no active proof signing key is stored')
      if (active.kid !== service.kid) {
        service = this.openServiceKey(active)
        this.serviceKeys.set('proof', Promise.resolve(service))
      }
    }
    const { kid, key } = service
    return { jws: signCompactEdDsa({ alg: 'EdDSA', kid, typ: PROOF_JWS_TYPE }, canonical, key), kid }
  }

  /**
   * Rotates the proof key inside the caller's write (`db`, its transaction): retires the active key and
   * stores a new one, sealed like every key. The instant is taken once the active key's row is locked,
   * after the proofs it signed committed, and one millisecond on, so it is after each of their
   * `evaluated_at` (a verifier trusts a key for what it signed strictly before its retirement).
   */
  async rotateProofKey(db: Executor): Promise<{ kid: string; at: string; retiredKid: string }> {
    // A database that never signed a proof has no key yet: make one, so there is one to retire.
    await this.service()
    let current = await findServiceKey(db, 'proof', 'update')
    // A rotation by another instance committed while this one waited for the row: retire its new key.
    current ??= await findServiceKey(db, 'proof', 'update')
    if (!current) throw new Error('no active proof signing key to retire')
    const at = isoTimestamp(this.clock.now() + 1)
    const generated = generateSigningKey()
    const kid = await calculateJwkThumbprint({ kty: 'OKP', crv: 'Ed25519', x: generated.publicX })
    await retireServiceKey(db, current.kid, at)
    await insertServiceKey(db, {
      kid,
      purpose: 'proof',
      private_key: this.masterKey.seal(
        Buffer.from(generated.privateKey, 'base64'),
        serviceKeyAad({ kid, purpose: 'proof' }),
      ),
      public_x: generated.publicX,
      created_at: at,
      retired_at: null,
    })
    return { kid, at, retiredKid: current.kid }
  }

  /** Forgets the cached service keys: a rotation here or on another instance (`signing-keys`). */
  forgetServiceKeys(): void {
    this.serviceKeys.clear()
  }

  /** The log key: it signs every organization's checkpoints (docs/governance.md, "The verifiable log"). */
  logKey(): Promise<ServiceKey> {
    return this.service('log')
  }

  /**
   * The public JWKS of the service's keys, as the database holds them: the active proof key, the log
   * key, then the retired proof keys (newest first, with `retired_at`), so every proof finds its kid.
   */
  async jwks(): Promise<Jwks> {
    const log = await this.service('log')
    await this.service()
    const rows = await listServiceKeys(this.db, 'proof')
    const jwk = (kid: string, x: string) =>
      ({ kty: 'OKP', crv: 'Ed25519', x, kid, alg: 'EdDSA', use: 'sig' }) as const
    const retired = rows.filter((row) => row.retired_at !== null).reverse()
    return {
      keys: [
        ...rows.filter((row) => row.retired_at === null).map((row) => jwk(row.kid, row.public_x)),
        jwk(log.kid, log.publicX),
        ...retired.map((row) => ({ ...jwk(row.kid, row.public_x), retired_at: row.retired_at! })),
      ],
    }
  }

  /**
   * Every proof key with its validity, for a trust bundle: retired keys too, with `valid_until` their
   * retirement (a proof keeps verifying with the key that signed it before).
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
    return this.openServiceKey(row)
  }

  /** The KeyObject of a stored service key, opened with the master key and checked against its public half. */
  private openServiceKey(row: {
    kid: string
    purpose: string
    private_key: string
    public_x: string
  }): ServiceKey {
    const der = this.masterKey.open(row.private_key, serviceKeyAad(row), `service key ${row.kid}`)
    const key = importPrivateKey(der)
    // Guard against a stored public half that does not match the private key.
    const x = createPublicKey(key).export({ format: 'jwk' }).x
    if (x !== row.public_x) throw new Error(`${row.purpose} signing key ${row.kid} is inconsistent`)
    return { kid: row.kid, key, publicX: row.public_x }
  }
}
