import { generateKeyPairSync, type KeyObject, randomUUID } from 'node:crypto'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { SignJWT } from 'jose'
import { multikeyOf } from '../../src/proof/did-key.js'
import { emptyBitstring, encodeStatusList, setStatusBit, statusBit } from '../../src/proof/status-list.js'

/*
 * A KYC provider on this machine, for the tests (and the basis of `rwa dev issuer`): a did:web served over
 * loopback HTTP (`did:web:127.0.0.1%3A<port>`, its document at /.well-known/did.json, or at
 * /<path>/did.json for a DID with a path), Ed25519 keys published in the JsonWebKey form or the Multikey
 * form, EdDSA VC-JWTs, and two W3C Bitstring Status Lists (purposes `revocation` and `suspension`) served
 * as status list credentials signed by the issuer's current key. Everything it publishes is made on
 * each request from its state, so revoking, suspending, reinstating and rotating keys show on the next
 * fetch. `unreachable` makes it answer 503 to everything; `requests` counts what was fetched.
 */

export type KeyForm = 'jwk' | 'multikey'
export type StatusPurpose = 'revocation' | 'suspension'

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

export interface IssueOptions {
  subject: string
  /** VC types besides `VerifiableCredential` (default `['KYCCredential']`). */
  types?: string[]
  validFrom?: Date
  validUntil?: Date | null
  /** The status entries to give it (default `['revocation']`); one is written as an object, two as an array. */
  status?: StatusPurpose[]
  /** Claims added to (or replacing) the payload's, e.g. another `iss`. */
  claims?: Record<string, unknown>
  /** Sign with this key instead of the current one (its kid in the header unless `kid` is given). */
  key?: Pick<IssuerKey, 'privateKey' | 'kid'>
  kid?: string
}

export interface Issued {
  vc_jwt: string
  /** The index of its entries in the lists (one index, in each list it has an entry in). */
  index: number
  payload: Record<string, unknown>
}

export interface TestIssuerOptions {
  /** The DID's path segments (`did:web:127.0.0.1%3A<port>:a:b`, its document at /a/b/did.json). */
  path?: string[]
  /** The form of the first key (default `jwk`). */
  keyForm?: KeyForm
  /** The issuer's clock, for the status lists' `validFrom` (default: the system's). */
  now?: () => Date
  /** Entries in each list (default 131,072, the fewest the W3C recommends). */
  listBits?: number
  /** Also list a P-256 key in the document (a key of another type, which a verifier must not take). */
  withP256Key?: boolean
}

export class TestIssuer {
  readonly keys: IssuerKey[] = []
  /** What was requested of it, by path, in order. */
  readonly requests: string[] = []
  /** Answer 503 to every request (a provider that is down). */
  unreachable = false
  private readonly lists: Record<StatusPurpose, Uint8Array>
  private nextIndex = 7
  private server: Server | undefined
  private readonly now: () => Date
  private readonly p256: Record<string, unknown> | undefined
  did = ''
  /** `http://127.0.0.1:<port>` followed by the DID's path, where its files are served. */
  base = ''

  private constructor(private readonly options: TestIssuerOptions) {
    const bits = options.listBits ?? 131_072
    this.lists = { revocation: emptyBitstring(bits), suspension: emptyBitstring(bits) }
    this.now = options.now ?? (() => new Date())
    this.p256 = options.withP256Key
      ? (generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' }) as Record<
          string,
          unknown
        >)
      : undefined
  }

  /** Starts an issuer on a free loopback port. */
  static async start(options: TestIssuerOptions = {}): Promise<TestIssuer> {
    const issuer = new TestIssuer(options)
    await issuer.listen()
    return issuer
  }

  private async listen(): Promise<void> {
    this.server = createServer((req, res) => this.answer(req, res))
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve))
    const port = (this.server.address() as AddressInfo).port
    const path = this.options.path ?? []
    this.did = ['did:web', `127.0.0.1%3A${port}`, ...path].join(':')
    this.base = `http://127.0.0.1:${port}${path.map((p) => `/${p}`).join('')}`
    this.addKey(this.options.keyForm ?? 'jwk')
  }

  /** Where the DID document is served. */
  get documentUrl(): string {
    return (this.options.path ?? []).length > 0
      ? `${this.base}/did.json`
      : `${this.base}/.well-known/did.json`
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

  /** The DID document as served now. */
  document(): Record<string, unknown> {
    const published = this.keys.filter((k) => k.published)
    const methods: Record<string, unknown>[] = published.map((k) =>
      k.form === 'jwk'
        ? { id: k.kid, type: 'JsonWebKey', controller: this.did, publicKeyJwk: k.publicJwk }
        : {
            id: k.kid,
            type: 'Multikey',
            controller: this.did,
            publicKeyMultibase: multikeyOf(Buffer.from(k.publicJwk.x, 'base64url')),
          },
    )
    if (this.p256) {
      methods.push({
        id: `${this.did}#p256`,
        type: 'JsonWebKey',
        controller: this.did,
        publicKeyJwk: this.p256,
      })
    }
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

  /** Signs a VC-JWT payload as is (a credential crafted by a test), with the current key or `key`. */
  async sign(
    payload: Record<string, unknown>,
    options: { key?: Pick<IssuerKey, 'privateKey' | 'kid'>; kid?: string; typ?: string } = {},
  ): Promise<string> {
    const key = options.key ?? this.currentKey
    return new SignJWT(payload)
      .setProtectedHeader({ alg: 'EdDSA', typ: options.typ ?? 'vc+jwt', kid: options.kid ?? key.kid })
      .sign(key.privateKey)
  }

  /** Issues a VC-JWT about `subject` (a new index in the lists, all of its bits clear). */
  async issue(options: IssueOptions): Promise<Issued> {
    const index = this.nextIndex++
    const now = this.now()
    const validFrom = options.validFrom ?? now
    const validUntil =
      options.validUntil === null
        ? undefined
        : (options.validUntil ?? new Date(validFrom.getTime() + 30 * 24 * 3600 * 1000))
    const id = `urn:uuid:${randomUUID()}`
    const purposes = options.status ?? ['revocation']
    const entries = purposes.map((purpose) => this.statusEntry(purpose, index))
    const payload: Record<string, unknown> = {
      '@context': ['https://www.w3.org/ns/credentials/v2'],
      id,
      type: ['VerifiableCredential', ...(options.types ?? ['KYCCredential'])],
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
    const vc_jwt = await this.sign(payload, {
      ...(options.key ? { key: options.key } : {}),
      ...(options.kid ? { kid: options.kid } : {}),
    })
    return { vc_jwt, index, payload }
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

  /** Revokes an index (for good: the revocation list has no way back here, as a provider's). */
  revoke(index: number): void {
    setStatusBit(this.lists.revocation, index)
  }

  /** Suspends an index until `reinstate`. */
  suspend(index: number): void {
    setStatusBit(this.lists.suspension, index)
  }

  /** Clears an index's suspension bit. */
  reinstate(index: number): void {
    const bits = this.lists.suspension
    bits[index >> 3]! &= ~(1 << (7 - (index & 7)))
  }

  /** Whether an index's bit is set in a list. */
  isSet(purpose: StatusPurpose, index: number): boolean {
    return statusBit(this.lists[purpose], index)
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

  private answer(req: IncomingMessage, res: ServerResponse): void {
    const path = (req.url ?? '/').split('?')[0]!
    this.requests.push(path)
    if (this.unreachable) {
      res.writeHead(503, { 'content-type': 'text/plain' }).end('down for maintenance')
      return
    }
    const prefix = new URL(this.base).pathname.replace(/\/$/, '')
    const documentPath = new URL(this.documentUrl).pathname
    if (req.method === 'GET' && path === documentPath) {
      res.writeHead(200, { 'content-type': 'application/did+json' }).end(JSON.stringify(this.document()))
      return
    }
    const purpose = path.startsWith(`${prefix}/status/`) ? path.slice(`${prefix}/status/`.length) : ''
    if (req.method === 'GET' && (purpose === 'revocation' || purpose === 'suspension')) {
      this.statusListCredential(purpose).then(
        (jwt) => res.writeHead(200, { 'content-type': 'application/vc+jwt' }).end(jwt),
        () => res.writeHead(500).end(),
      )
      return
    }
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found')
  }

  /** How many times a path was requested. */
  count(path: string): number {
    return this.requests.filter((p) => p === path).length
  }

  async stop(): Promise<void> {
    const server = this.server
    this.server = undefined
    if (!server) return
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  }
}
