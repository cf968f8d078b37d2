import { generateKeyPairSync } from 'node:crypto'
import { answerIssuerRequest, type IssuerServer, listenLoopback } from '../../src/dev-issuer/http.js'
import {
  DevIssuer,
  type IssueOptions,
  type Issued,
  type IssuerKey,
  type KeyForm,
  loopbackAddress,
  type StatusPurpose,
} from '../../src/dev-issuer/issuer.js'

/*
 * A KYC provider on this machine, for the tests: the issuer of `rwa dev issuer` (src/dev-issuer/), kept
 * in memory, with what a test needs besides: `unreachable` makes it answer 503 to everything;
 * `requests` counts what was fetched; `withP256Key` lists a key of another type in its document.
 */

export { ed25519Pair } from '../../src/dev-issuer/issuer.js'
export type { IssueOptions, Issued, IssuerKey, KeyForm, StatusPurpose }

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
  /** What was requested of it, by path, in order. */
  readonly requests: string[] = []
  /** Answer 503 to every request (a provider that is down). */
  unreachable = false
  private server: IssuerServer | undefined
  private core!: DevIssuer
  /** Verification methods of other types its document lists after its keys (`withP256Key`). */
  private readonly p256: Record<string, unknown>[] = []

  private constructor() {}

  /** Starts an issuer on a free loopback port. */
  static async start(options: TestIssuerOptions = {}): Promise<TestIssuer> {
    const issuer = new TestIssuer()
    issuer.server = await listenLoopback((req, res) => {
      issuer.requests.push((req.url ?? '/').split('?')[0]!)
      if (issuer.unreachable) {
        res.writeHead(503, { 'content-type': 'text/plain' }).end('down for maintenance')
        return
      }
      answerIssuerRequest(issuer.core, req, res, issuer.p256)
    })
    issuer.core = DevIssuer.create(loopbackAddress(issuer.server.port, options.path ?? []), {
      ...(options.keyForm ? { keyForm: options.keyForm } : {}),
      ...(options.now ? { now: options.now } : {}),
      ...(options.listBits ? { listBits: options.listBits } : {}),
    })
    if (options.withP256Key) {
      issuer.p256.push({
        id: `${issuer.core.did}#p256`,
        type: 'JsonWebKey',
        controller: issuer.core.did,
        publicKeyJwk: generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' }),
      })
    }
    return issuer
  }

  get did(): string {
    return this.core.did
  }
  get base(): string {
    return this.core.base
  }
  get keys(): IssuerKey[] {
    return this.core.keys
  }
  get documentUrl(): string {
    return this.core.documentUrl
  }
  get currentKey(): IssuerKey {
    return this.core.currentKey
  }
  statusListUrl(purpose: StatusPurpose): string {
    return this.core.statusListUrl(purpose)
  }
  rotateKey(options: { form?: KeyForm; keepOld?: boolean } = {}): IssuerKey {
    return this.core.rotateKey(options)
  }
  document(): Record<string, unknown> {
    return this.core.document(this.p256)
  }
  sign(...args: Parameters<DevIssuer['sign']>): Promise<string> {
    return this.core.sign(...args)
  }
  issue(options: IssueOptions): Promise<Issued> {
    return this.core.issue(options)
  }
  statusEntry(purpose: StatusPurpose, index: number): Record<string, string> {
    return this.core.statusEntry(purpose, index)
  }
  revoke(index: number): void {
    this.core.revoke(index)
  }
  suspend(index: number): void {
    this.core.suspend(index)
  }
  reinstate(index: number): void {
    this.core.reinstate(index)
  }
  isSet(purpose: StatusPurpose, index: number): boolean {
    return this.core.isSet(purpose, index)
  }
  statusListCredential(purpose: StatusPurpose): Promise<string> {
    return this.core.statusListCredential(purpose)
  }

  /** How many times a path was requested. */
  count(path: string): number {
    return this.requests.filter((p) => p === path).length
  }

  async stop(): Promise<void> {
    const server = this.server
    this.server = undefined
    await server?.close()
  }
}
