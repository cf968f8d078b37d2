import { createPrivateKey, generateKeyPairSync, type KeyObject, randomUUID } from 'node:crypto'
import { SignJWT } from 'jose'
import { multikeyOf } from '../proof/did-key.js'
import {
  emptyBitstring,
  encodeStatusList,
  STATUS_LIST_MIN_BITS,
  setStatusBit,
  statusBit,
} from '../proof/status-list.js'

/*
 * A KYC provider on this machine (`rwa dev issuer`, and the test suite's issuer): a did:web on loopback
 * (`did:web:127.0.0.1%3A<port>`, its document at /.well-known/did.json, or at /<path>/did.json for a DID
 * with a path), Ed25519 keys published in the JsonWebKey or the Multikey form, EdDSA VC-JWTs, and two
 * W3C Bitstring Status Lists (purposes `revocation` and `suspension`) published as status list
 * credentials signed by its current key. Everything it publishes is made from its state when asked, so
 * revoking, suspending, reinstating and rotating keys show on the next fetch. Its state can be written
 * out as JSON (`toJSON`, `DevIssuer.fromJSON`): the CLI keeps it in a directory, so its commands can run
 * as separate processes. Free of server and CLI code.
 */

export type KeyForm = 'jwk' | 'multikey'
export type StatusPurpose = 'revocation' | 'suspension'
export const STATUS_PURPOSES: readonly StatusPurpose[] = ['revocation', 'suspension']

/** One key of the issuer: its verification method, its private half and how the document shows it. */
export interface IssuerKey {
  kid: string
  fragment: string
  privateKey: KeyObject
  publicJwk: { kty: 'OKP'; crv: 'Ed25519'; x: string }
  form: KeyForm
  /** Whether did.json lists it (a rotated-out key is not listed any more). */
  published: boolean
}

/** A fresh Ed25519 key pair, its public half as a JWK. */
export function ed25519Pair(): { privateKey: KeyObject; publicJwk: IssuerKey['publicJwk'] } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519')
  const jwk = publicKey.export({ format: 'jwk' }) as { x: string }
  return { privateKey, publicJwk: { kty: 'OKP', crv: 'Ed25519', x: jwk.x } }
}

/** Where a did:web on loopback lives: its DID and the http base its files are served under. */
export interface IssuerAddress {
  did: string
  /** `http://127.0.0.1:<port>` followed by the DID's path. */
  base: string
  path: string[]
}

/** The did:web of an issuer listening on 127.0.0.1:`port`, with the DID's path segments. */
export function loopbackAddress(port: number, path: string[] = []): IssuerAddress {
  return {
    did: ['did:web', `127.0.0.1%3A${port}`, ...path].join(':'),
    base: `http://127.0.0.1:${port}${path.map((p) => `/${p}`).join('')}`,
    path,
  }
}

export interface IssueOptions {
  subject: string
  /** VC types besides `VerifiableCredential` (default `['KYCCredential']`). */
  types?: string[]
  validFrom?: Date
  /** When it ends (default 30 days after `validFrom`); `null`: never. */
  validUntil?: Date | null
  /** The status entries to give it (default `['revocation']`); one is written as an object, two as an array. */
  status?: StatusPurpose[]
  /** Claims added to (or replacing) the payload's, e.g. another `iss`. */
  claims?: Record<string, unknown>
  /** Sign with this key instead of the current one (its kid in the header unless `kid` is given). */
  key?: Pick<IssuerKey, 'privateKey' | 'kid'>
  kid?: string
}

/** What the issuer remembers of a credential it issued (never the credential's signature). */
export interface IssuedRecord {
  /** The issuer's short name for it: `vc-1`, `vc-2`, … */
  id: string
  /** The VC's own `id` (`urn:uuid:…`). */
  credential_id: string
  subject: string
  types: string[]
  /** Its index in the lists (the same index in each list it has an entry in). */
  index: number
  status: StatusPurpose[]
  kid: string
  issued_at: string
  valid_from: string
  valid_until: string | null
}

export interface Issued {
  vc_jwt: string
  /** The index of its entries in the lists (one index, in each list it has an entry in). */
  index: number
  payload: Record<string, unknown>
  record: IssuedRecord
}

export interface DevIssuerOptions {
  /** The form of the first key (default `jwk`). */
  keyForm?: KeyForm
  /** The issuer's clock, for what it signs (default: the system's). */
  now?: () => Date
  /** Entries in each list (default 131,072, the fewest the W3C recommends). */
  listBits?: number
  /** The first index it gives (default 7: an index 0 would hide a list read from the wrong end). */
  firstIndex?: number
}

/** The issuer's state as JSON: what `rwa dev issuer` keeps in its directory (private keys included). */
export interface DevIssuerState {
  version: 1
  did: string
  base: string
  path: string[]
  keys: Array<{
    fragment: string
    form: KeyForm
    published: boolean
    jwk: { kty: 'OKP'; crv: 'Ed25519'; x: string; d: string }
  }>
  lists: Record<StatusPurpose, string>
  next_index: number
  issued: IssuedRecord[]
}

const DAY = 24 * 3600 * 1000

export class DevIssuer {
  readonly keys: IssuerKey[] = []
  readonly issued: IssuedRecord[] = []
  private constructor(
    private address: IssuerAddress,
    private readonly lists: Record<StatusPurpose, Uint8Array>,
    private nextIndex: number,
    readonly now: () => Date,
  ) {}

  /** A new issuer at `address`, with one key. */
  static create(address: IssuerAddress, options: DevIssuerOptions = {}): DevIssuer {
    const bits = options.listBits ?? STATUS_LIST_MIN_BITS
    const issuer = new DevIssuer(
      address,
      { revocation: emptyBitstring(bits), suspension: emptyBitstring(bits) },
      options.firstIndex ?? 7,
      options.now ?? (() => new Date()),
    )
    issuer.addKey(options.keyForm ?? 'jwk')
    return issuer
  }

  /** The issuer a `toJSON` wrote; throws naming what is wrong with it. */
  static fromJSON(state: DevIssuerState, now: () => Date = () => new Date()): DevIssuer {
    if (state?.version !== 1 || typeof state.did !== 'string' || !Array.isArray(state.keys)) {
      throw new Error('not a dev issuer state (version 1)')
    }
    const lists = {
      revocation: new Uint8Array(Buffer.from(state.lists.revocation, 'base64')),
      suspension: new Uint8Array(Buffer.from(state.lists.suspension, 'base64')),
    }
    const issuer = new DevIssuer(
      { did: state.did, base: state.base, path: state.path },
      lists,
      state.next_index,
      now,
    )
    for (const k of state.keys) {
      issuer.keys.push({
        kid: `${state.did}#${k.fragment}`,
        fragment: k.fragment,
        privateKey: createPrivateKey({ key: k.jwk, format: 'jwk' }),
        publicJwk: { kty: 'OKP', crv: 'Ed25519', x: k.jwk.x },
        form: k.form,
        published: k.published,
      })
    }
    issuer.issued.push(...state.issued)
    return issuer
  }

  toJSON(): DevIssuerState {
    return {
      version: 1,
      ...this.address,
      keys: this.keys.map((k) => ({
        fragment: k.fragment,
        form: k.form,
        published: k.published,
        jwk: { ...k.publicJwk, d: (k.privateKey.export({ format: 'jwk' }) as { d: string }).d },
      })),
      lists: {
        revocation: Buffer.from(this.lists.revocation).toString('base64'),
        suspension: Buffer.from(this.lists.suspension).toString('base64'),
      },
      next_index: this.nextIndex,
      issued: this.issued,
    }
  }

  get did(): string {
    return this.address.did
  }

  /** `http://127.0.0.1:<port>` followed by the DID's path, where its files are served. */
  get base(): string {
    return this.address.base
  }

  /** The DID's path segments (none: its document is at /.well-known/did.json). */
  get path(): string[] {
    return this.address.path
  }

  /**
   * Moves the issuer to another address (a dev issuer started on another port): its keys keep their
   * fragments under the new DID. What it issued before names the old DID.
   */
  moveTo(address: IssuerAddress): void {
    this.address = address
    for (const key of this.keys) key.kid = `${address.did}#${key.fragment}`
  }

  /** Where the DID document is served. */
  get documentUrl(): string {
    return this.address.path.length > 0 ? `${this.base}/did.json` : `${this.base}/.well-known/did.json`
  }

  /** The URL of the status list credential of a purpose. */
  statusListUrl(purpose: StatusPurpose): string {
    return `${this.base}/status/${purpose}`
  }

  /** The key that signs now: the newest published one. */
  get currentKey(): IssuerKey {
    return this.keys.filter((k) => k.published).at(-1)!
  }

  private addKey(form: KeyForm): IssuerKey {
    const fragment = `key-${this.keys.length + 1}`
    const key = { ...ed25519Pair(), kid: `${this.did}#${fragment}`, fragment, form, published: true }
    this.keys.push(key)
    return key
  }

  /**
   * A new key that signs from now on, in `form` (default: Multikey when the last one was a JWK, and the
   * other way round). The old keys leave the document unless `keepOld`.
   */
  rotateKey(options: { form?: KeyForm; keepOld?: boolean } = {}): IssuerKey {
    const form = options.form ?? (this.currentKey.form === 'jwk' ? 'multikey' : 'jwk')
    if (!options.keepOld) for (const key of this.keys) key.published = false
    return this.addKey(form)
  }

  /** The DID document as served now (`extraMethods`: verification methods listed after its keys). */
  document(extraMethods: Record<string, unknown>[] = []): Record<string, unknown> {
    const methods: Record<string, unknown>[] = this.keys
      .filter((k) => k.published)
      .map((k) =>
        k.form === 'jwk'
          ? { id: k.kid, type: 'JsonWebKey', controller: this.did, publicKeyJwk: k.publicJwk }
          : {
              id: k.kid,
              type: 'Multikey',
              controller: this.did,
              publicKeyMultibase: multikeyOf(Buffer.from(k.publicJwk.x, 'base64url')),
            },
      )
    methods.push(...extraMethods)
    return {
      '@context': [
        'https://www.w3.org/ns/did/v1',
        'https://w3id.org/security/multikey/v1',
        'https://w3id.org/security/jwk/v1',
      ],
      id: this.did,
      verificationMethod: methods,
      assertionMethod: methods.map((m) => m.id),
    }
  }

  /** Signs a VC-JWT payload as is, with the current key or `key`. */
  async sign(
    payload: Record<string, unknown>,
    options: { key?: Pick<IssuerKey, 'privateKey' | 'kid'>; kid?: string; typ?: string } = {},
  ): Promise<string> {
    const key = options.key ?? this.currentKey
    return new SignJWT(payload)
      .setProtectedHeader({ alg: 'EdDSA', typ: options.typ ?? 'vc+jwt', kid: options.kid ?? key.kid })
      .sign(key.privateKey)
  }

  /** Issues a VC-JWT about `subject` (a new index in the lists, all of its bits clear), and records it. */
  async issue(options: IssueOptions): Promise<Issued> {
    const index = this.nextIndex
    if (index >= this.lists.revocation.length * 8) throw new Error('the status lists are full')
    this.nextIndex++
    const now = this.now()
    const validFrom = options.validFrom ?? now
    const validUntil =
      options.validUntil === null
        ? undefined
        : (options.validUntil ?? new Date(validFrom.getTime() + 30 * DAY))
    const id = `urn:uuid:${randomUUID()}`
    const purposes = options.status ?? ['revocation']
    const entries = purposes.map((purpose) => this.statusEntry(purpose, index))
    const types = options.types ?? ['KYCCredential']
    const payload: Record<string, unknown> = {
      '@context': ['https://www.w3.org/ns/credentials/v2'],
      id,
      type: ['VerifiableCredential', ...types],
      issuer: this.did,
      validFrom: validFrom.toISOString(),
      ...(validUntil ? { validUntil: validUntil.toISOString() } : {}),
      credentialSubject: { id: options.subject },
      ...(entries.length === 0 ? {} : { credentialStatus: entries.length === 1 ? entries[0] : entries }),
      iss: this.did,
      sub: options.subject,
      jti: id,
      iat: Math.floor(now.getTime() / 1000),
      ...options.claims,
    }
    const kid = options.kid ?? options.key?.kid ?? this.currentKey.kid
    const vc_jwt = await this.sign(payload, {
      ...(options.key ? { key: options.key } : {}),
      ...(options.kid ? { kid: options.kid } : {}),
    })
    const record: IssuedRecord = {
      id: `vc-${this.issued.length + 1}`,
      credential_id: id,
      subject: options.subject,
      types,
      index,
      status: purposes,
      kid,
      issued_at: now.toISOString(),
      valid_from: validFrom.toISOString(),
      valid_until: validUntil?.toISOString() ?? null,
    }
    this.issued.push(record)
    return { vc_jwt, index, payload, record }
  }

  /** A credential it issued, by its short id (`vc-1`) or its VC id (`urn:uuid:…`). */
  find(id: string): IssuedRecord | undefined {
    return this.issued.find((r) => r.id === id || r.credential_id === id)
  }

  /** The `credentialStatus` entry of an index in a list. */
  statusEntry(purpose: StatusPurpose, index: number): Record<string, string> {
    const url = this.statusListUrl(purpose)
    return {
      id: `${url}#${index}`,
      type: 'BitstringStatusListEntry',
      statusPurpose: purpose,
      statusListIndex: String(index),
      statusListCredential: url,
    }
  }

  /** Revokes an index (for good: the revocation list has no way back, as a provider's). */
  revoke(index: number): void {
    setStatusBit(this.lists.revocation, index)
  }

  /** Suspends an index until `reinstate`. */
  suspend(index: number): void {
    setStatusBit(this.lists.suspension, index)
  }

  /** Clears an index's suspension bit. */
  reinstate(index: number): void {
    this.lists.suspension[index >> 3]! &= ~(1 << (7 - (index & 7)))
  }

  /** Whether an index's bit is set in a list. */
  isSet(purpose: StatusPurpose, index: number): boolean {
    return statusBit(this.lists[purpose], index)
  }

  /** What a credential's entries say now: `revoked`, else `suspended`, else `active`. */
  statusOf(record: IssuedRecord): 'active' | 'revoked' | 'suspended' {
    if (record.status.includes('revocation') && this.isSet('revocation', record.index)) return 'revoked'
    if (record.status.includes('suspension') && this.isSet('suspension', record.index)) return 'suspended'
    return 'active'
  }

  /** The status list credential of a purpose, as served now: signed by the current key, valid from now. */
  async statusListCredential(purpose: StatusPurpose): Promise<string> {
    const url = this.statusListUrl(purpose)
    const now = this.now()
    return this.sign({
      '@context': ['https://www.w3.org/ns/credentials/v2'],
      id: url,
      type: ['VerifiableCredential', 'BitstringStatusListCredential'],
      issuer: this.did,
      validFrom: now.toISOString(),
      credentialSubject: {
        id: `${url}#list`,
        type: 'BitstringStatusList',
        statusPurpose: purpose,
        encodedList: encodeStatusList(this.lists[purpose]),
      },
      iss: this.did,
      iat: Math.floor(now.getTime() / 1000),
    })
  }
}
