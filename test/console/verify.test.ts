import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Proof, TrustBundle } from '../../src/contract/rwa.js'
import { eventLeafHash, inclusionHolds, verifyCheckpointInPage } from '../../src/console/verify/checkpoint.js'
import { transferDiffers, verifyProofInPage } from '../../src/console/verify/proof.js'
import { proofDigest, verifyProofTrusted } from '../../src/proof/verify.js'
import { eventLeafHash as serverLeafHash } from '../../src/tlog/leaf.js'
import { verifyCheckpoint } from '../../src/tlog/note.js'
import { buildWorld, expectStatus, transferBody } from '../support/governance.js'
import { createHarness, type Harness } from '../support/harness.js'

/*
 * What the console verifies in the browser (docs/console.md, "Verified in the browser"), run here under
 * Node's WebCrypto against records the server made: every proof and checkpoint that holds for the CLI's
 * verifier (src/proof/verify.ts, src/tlog/note.ts) holds in the page, and every alteration that makes
 * the CLI's refuse makes the page's refuse too.
 */

let h: Harness
let bundle: TrustBundle
let transfer: any
let rejected: any
beforeAll(async () => {
  h = await createHarness()
  const acme = await h.createOrg('acme', { trial: true })
  const world = await buildWorld(h, acme.key)
  const approved = await expectStatus(
    h.post('/console/rwa/transfers', transferBody(world.tokenId, 100), { key: acme.key }),
    201,
  )
  const refused = await expectStatus(
    h.post(
      '/console/rwa/transfers',
      transferBody(world.tokenId, 10, { recipient_did: 'did:web:lion:carol' }),
      {
        key: acme.key,
      },
    ),
    201,
  )
  transfer = await expectStatus(
    h.get(`/console/rwa/transfers/${approved.transfer_id}`, { key: acme.key }),
    200,
  )
  rejected = await expectStatus(
    h.get(`/console/rwa/transfers/${refused.transfer_id}`, { key: acme.key }),
    200,
  )
  bundle = await expectStatus(h.get('/console/rwa/trust-bundle', { key: acme.key }), 200)
})
afterAll(() => h.close())

const clone = <T>(value: T): T => structuredClone(value)

/** The page's verdict and the CLI's on the same proof: they must agree. */
async function verdicts(proof: Proof, trust = bundle) {
  const page = await verifyProofInPage(proof, trust)
  const cli = await verifyProofTrusted(proof, trust)
  return { page: page.holds, cli: cli.valid, reason: page.holds ? undefined : page.reason }
}

describe('a proof verified in the page', () => {
  it('holds for the server’s proofs, approved and rejected, as it does for the CLI', async () => {
    expect(await verdicts(transfer.proof)).toEqual({ page: true, cli: true, reason: undefined })
    expect(await verdicts(rejected.proof)).toEqual({ page: true, cli: true, reason: undefined })
    expect(transferDiffers(transfer, transfer.proof)).toBeUndefined()
    expect(transferDiffers(rejected, rejected.proof)).toBeUndefined()
  })

  it('does not hold once anything is altered, for the same reason the CLI gives', async () => {
    const cases: Array<[string, (p: any, b: any) => void, RegExp]> = [
      ['an amount', (p) => (p.transfer.amount = 900), /digest does not match/],
      [
        'an amount, the digest recomputed',
        (p) => {
          p.transfer.amount = 900
          p.digest = proofDigest(p)
        },
        /signed payload differs/,
      ],
      [
        'a decision, the digest recomputed',
        (p) => {
          p.decision = 'rejected'
          p.digest = proofDigest(p)
        },
        /signed payload differs/,
      ],
      [
        'the signature',
        (p) => {
          const [head, body, sig] = p.jws.split('.')
          p.jws = `${head}.${body}.${sig.startsWith('A') ? `B${sig.slice(1)}` : `A${sig.slice(1)}`}`
        },
        /signature does not verify/,
      ],
      ['the key', (p) => (p.kid = 'someone-else'), /not a proof key/],
      [
        'the key in the bundle',
        (_p, b) => (b.proof_keys.keys[0].x = bundle.issuers[0]!.issuer_did.slice(-43)),
        /signature/,
      ],
      [
        'the organization of the bundle',
        (_p, b) => (b.org_id = 'globex'),
        /made for organization acme, not globex/,
      ],
      ['an issuer of the bundle', (_p, b) => (b.issuers[0].issuer_did = 'did:key:z6Mkother'), /issuer of/],
    ]
    for (const [what, alter, reason] of cases) {
      const proof = clone(transfer.proof)
      const trust = clone(bundle)
      alter(proof, trust)
      const result = await verdicts(proof, trust)
      expect([result.page, result.cli], what).toEqual([false, false])
      expect(result.reason, what).toMatch(reason)
    }
  })

  it('notices a transfer shown otherwise than its proof signs it', () => {
    expect(transferDiffers({ ...transfer, amount: 101 }, transfer.proof)).toMatch(/amount/)
    expect(transferDiffers({ ...rejected, status: 'approved' }, rejected.proof)).toMatch(/status/)
    const checks = clone(rejected.compliance_details)
    checks.checks[0].reason = 'all fine'
    expect(transferDiffers({ ...rejected, compliance_details: checks }, rejected.proof)).toMatch(
      /compliance_details/,
    )
  })
})

describe('the log verified in the page', () => {
  it('holds for the server’s checkpoint with the bundle’s log key, and each entry’s inclusion proof', async () => {
    const answer = await expectStatus(
      h.get('/console/audit/log/checkpoint', { query: { org_id: 'acme' } }),
      200,
    )
    const vkey = bundle.log_key!.vkey
    const verdict = await verifyCheckpointInPage(answer.checkpoint, vkey)
    expect(verdict.holds).toBe(true)
    const server = verifyCheckpoint(answer.checkpoint, vkey)
    if (!verdict.holds) throw new Error('unreachable')
    expect([
      verdict.checkpoint.origin,
      verdict.checkpoint.size,
      Buffer.from(verdict.checkpoint.root),
    ]).toEqual([server.origin, server.size, server.root])
    const { entries } = await expectStatus(
      h.get('/console/audit/log/entries', { query: { org_id: 'acme', start: 0, end: server.size } }),
      200,
    )
    for (const entry of entries) {
      const leaf = await eventLeafHash(entry)
      expect(Buffer.from(leaf)).toEqual(serverLeafHash(entry))
      const inclusion = await expectStatus(
        h.get('/console/audit/log/inclusion', {
          query: { org_id: 'acme', index: entry.log_index, tree_size: server.size },
        }),
        200,
      )
      expect(
        await inclusionHolds(entry.log_index, server.size, leaf, inclusion.proof, verdict.checkpoint.root),
      ).toBeUndefined()
      // Another event's hash, or a wrong position, does not lead to the root.
      const other = await eventLeafHash({ ...entry, action: 'nothing.happened' })
      expect(
        await inclusionHolds(entry.log_index, server.size, other, inclusion.proof, verdict.checkpoint.root),
      ).toMatch(/is not in the tree/)
    }
  })

  it('does not hold for an altered note, another key, or a key under another name', async () => {
    const answer = await expectStatus(
      h.get('/console/audit/log/checkpoint', { query: { org_id: 'acme' } }),
      200,
    )
    const vkey = bundle.log_key!.vkey
    const note: string = answer.checkpoint
    const [origin, size] = note.split('\n')
    const grown = note.replace(`\n${size}\n`, `\n${Number(size) + 1}\n`)
    expect(await verifyCheckpointInPage(grown, vkey)).toEqual({
      holds: false,
      reason: expect.stringMatching(/no signature by the log key/),
    })
    // A verifier key whose id does not match its name and key.
    const [name, id, key] = [
      vkey.slice(0, vkey.indexOf('+')),
      ...vkey.slice(vkey.indexOf('+') + 1).split(/\+(.*)/s),
    ]
    expect(name).toBe(origin)
    const wrongId = `${name}+${id === '00000000' ? '11111111' : '00000000'}+${key}`
    expect((await verifyCheckpointInPage(note, wrongId)).holds).toBe(false)
    // The same key under another name is another key: its id differs, and no line of the note is by it.
    const other = await verifyCheckpointInPage(note, `elsewhere.example/console/audit/acme+${id}+${key}`)
    expect(other.holds).toBe(false)
  })
})
