import { Bitstring } from '@digitalbazaar/bitstring'
import { decodeJwt } from 'jose'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { checkRevocation } from '../../../src/proof/status-list.js'
import { verifyCredential } from '../../../src/proof/verify-credential.js'
import { buildWorld, expectStatus, transferBody, type World } from '../../support/governance.js'
import { createHarness, type Harness } from '../../support/harness.js'
import { TestIssuer } from '../../support/test-issuer.js'

/*
 * Suspension of the organization's own credentials and attestations (docs/governance.md,
 * "Suspension"): the routes and their refusals, the suspension list's bit as any verifier reads it, the
 * evaluation it changes, and the audit entries and events it leaves.
 */

const PUBLIC_URL = 'http://rwa.test'
let h: Harness
let w: World
beforeEach(async () => {
  h = await createHarness({ publicUrl: PUBLIC_URL, allowHttpIssuers: true })
  w = await buildWorld(h)
})
afterEach(() => h.close())

const credentialPath = () => `/console/rwa/credentials/${w.credentialId}`
const attestationPath = (type = 'kyc') => `/console/rwa/attestations/${w.attestations[type]}`

/** A status list served at `url`, fetched as a verifier does (no key). */
const listText = async (url: string) => {
  expect(url.startsWith(`${PUBLIC_URL}/console/rwa/status/sl_`)).toBe(true)
  const res = await h.get(new URL(url).pathname, { key: null })
  expect(res.status).toBe(200)
  return res.text
}

/** The bitstring of a served list, decoded by an independent library (Digital Bazaar's). */
async function listOf(url: string): Promise<{ purpose: string; bits: Bitstring }> {
  const subject = decodeJwt(await listText(url)).credentialSubject as {
    statusPurpose: string
    encodedList: string
  }
  const buffer = await Bitstring.decodeBits({ encoded: subject.encodedList.slice(1) })
  return { purpose: subject.statusPurpose, bits: new Bitstring({ buffer }) }
}

/** The revocation and suspension bits of a record, read from the lists its credentialStatus names. */
async function bitsOf(record: { credential_status: any[] }) {
  const [revocation, suspension] = record.credential_status
  expect(revocation.statusPurpose).toBe('revocation')
  expect(suspension.statusPurpose).toBe('suspension')
  expect(suspension.statusListIndex).toBe(revocation.statusListIndex)
  const revocationList = await listOf(revocation.statusListCredential)
  const suspensionList = await listOf(suspension.statusListCredential)
  expect([revocationList.purpose, suspensionList.purpose]).toEqual(['revocation', 'suspension'])
  const index = Number(revocation.statusListIndex)
  return { revoked: revocationList.bits.get(index), suspended: suspensionList.bits.get(index) }
}

const transfer = async (amount = 10) => {
  const t = await expectStatus(h.post('/console/rwa/transfers', transferBody(w.tokenId, amount)), 201)
  return { status: t.status, checks: t.compliance_details.checks as any[] }
}
const checkOf = (checks: any[], requirement: string, jurisdiction?: string) =>
  checks.find((c) => c.requirement === requirement && (!jurisdiction || c.jurisdiction === jurisdiction))

describe('POST /console/rwa/credentials/{id}/suspend and /reinstate', () => {
  it('suspends and reinstates, flipping only the suspension bit; the refusals are 409, an unknown id 404', async () => {
    const before = await expectStatus(h.get(credentialPath()), 200)
    expect(await bitsOf(before)).toEqual({ revoked: false, suspended: false })

    const suspended = await expectStatus(
      h.post(`${credentialPath()}/suspend`, { reason: 'court order' }),
      200,
    )
    expect(suspended).toEqual({ ...before, status: 'suspended' })
    expect(await expectStatus(h.get(credentialPath()), 200)).toEqual(suspended)
    expect(await bitsOf(suspended)).toEqual({ revoked: false, suspended: true })
    const listed = await expectStatus(
      h.get('/console/rwa/credentials', { query: { status: 'suspended' } }),
      200,
    )
    expect(listed.credentials.map((c: any) => c.credential_id)).toEqual([w.credentialId])
    expect(
      (await expectStatus(h.get('/console/rwa/credentials', { query: { status: 'active' } }), 200)).total,
    ).toBe(0)

    const again = await h.post(`${credentialPath()}/suspend`)
    expect([again.status, again.body.reason]).toEqual([409, 'credential_already_suspended'])

    const reinstated = await expectStatus(h.post(`${credentialPath()}/reinstate`), 200)
    expect(reinstated).toEqual(before)
    expect(await bitsOf(reinstated)).toEqual({ revoked: false, suspended: false })
    const notSuspended = await h.post(`${credentialPath()}/reinstate`)
    expect([notSuspended.status, notSuspended.body.reason]).toEqual([409, 'credential_not_suspended'])

    const unknown = await h.post('/console/rwa/credentials/cred_01M8420DESXZV8X28W2ZQWTKA9/suspend')
    expect([unknown.status, unknown.body.reason]).toEqual([404, 'credential_not_found'])
    const badReason = await h.post(`${credentialPath()}/suspend`, { reason: 42 })
    expect(badReason.status).toBe(400)
    expect(badReason.body.errors.map((e: any) => e.path)).toEqual(['reason'])
  })

  it('lets a suspended credential be revoked, for good: a revoked one is neither suspended nor reinstated', async () => {
    await expectStatus(h.post(`${credentialPath()}/suspend`), 200)
    const revoked = await expectStatus(h.post(`${credentialPath()}/revoke`, { reason: 'sold' }), 200)
    expect(revoked.status).toBe('revoked')
    expect((await bitsOf(revoked)).revoked).toBe(true)
    for (const change of ['suspend', 'reinstate']) {
      const res = await h.post(`${credentialPath()}/${change}`)
      expect([res.status, res.body.reason]).toEqual([409, 'credential_revoked'])
    }
    expect((await expectStatus(h.get(credentialPath()), 200)).status).toBe('revoked')
  })

  it('fails credential_valid while suspended and passes again once reinstated', async () => {
    expect((await transfer()).status).toBe('approved')
    await expectStatus(h.post(`${credentialPath()}/suspend`, { reason: 'title disputed' }), 200)
    const refused = await transfer()
    expect(refused.status).toBe('rejected')
    expect(checkOf(refused.checks, 'credential_valid')).toMatchObject({
      satisfied: false,
      evidence: w.credentialId,
      reason: expect.stringMatching(/is suspended since .* \(title disputed\): not valid until reinstated/),
    })
    // The token is not frozen by a suspension.
    expect((await expectStatus(h.get(`/console/rwa/tokens/${w.tokenId}`), 200)).status).toBe('active')
    await expectStatus(h.post(`${credentialPath()}/reinstate`), 200)
    expect((await transfer()).status).toBe('approved')
  })

  it('is read by checkRevocation as suspended, then active; verifyCredential refuses a suspended record', async () => {
    const credential = await expectStatus(h.get(credentialPath()), 200)
    const now = { now: new Date(h.clock.now()) }
    expect((await checkRevocation(credential.vc_jwt, listText, now)).status).toBe('active')
    const suspended = await expectStatus(h.post(`${credentialPath()}/suspend`), 200)
    expect(await checkRevocation(credential.vc_jwt, listText, now)).toMatchObject({
      status: 'suspended',
      statusListCredential: credential.credential_status[1].statusListCredential,
    })
    const verdict = await verifyCredential(suspended.vc_jwt, { record: suspended, now: now.now })
    expect(verdict).toMatchObject({ valid: false, reason: expect.stringMatching(/suspended/) })
    // As recorded (an audit), a suspended record is what was signed.
    expect((await verifyCredential(suspended.vc_jwt, { record: suspended, asRecorded: true })).valid).toBe(
      true,
    )

    // A suspension list served in place of a revocation list (or the reverse) is refused: fail closed.
    const [revocation, suspension] = credential.credential_status
    const swapped = async (url: string) =>
      listText(url === revocation.statusListCredential ? suspension.statusListCredential : url)
    expect((await checkRevocation(credential.vc_jwt, swapped, now)).status).toBe('unknown')
    const unreachable = async (url: string) => {
      if (url === suspension.statusListCredential) throw new Error('down')
      return listText(url)
    }
    expect(await checkRevocation(credential.vc_jwt, unreachable, now)).toMatchObject({
      status: 'unknown',
      reason: expect.stringMatching(/cannot fetch/),
    })

    await expectStatus(h.post(`${credentialPath()}/reinstate`), 200)
    expect((await checkRevocation(credential.vc_jwt, listText, now)).status).toBe('active')
    const reinstated = await expectStatus(h.get(credentialPath()), 200)
    expect((await verifyCredential(reinstated.vc_jwt, { record: reinstated, now: now.now })).valid).toBe(true)
  })
})

describe('a revocation list from before suspension lists (migration 0025)', () => {
  it('gets its sibling when an entry is next taken, and a credential issued before is suspended in it', async () => {
    const old = await expectStatus(h.get(credentialPath()), 200)
    const [revocation, suspension] = old.credential_status
    const oldListId = new URL(revocation.statusListCredential).pathname.split('/').pop()!
    // As the migration leaves a list: no sibling.
    await h.ctx.db.deleteFrom('status_lists').where('purpose', '=', 'suspension').execute()
    await h.ctx.db.updateTable('status_lists').set({ suspension_list_id: null }).execute()
    expect((await h.get(new URL(suspension.statusListCredential).pathname, { key: null })).status).toBe(404)

    const suspended = await expectStatus(h.post(`${credentialPath()}/suspend`), 200)
    expect(suspended.status).toBe('suspended')
    const sibling = await h.ctx.db
      .selectFrom('status_lists')
      .select('suspension_list_id')
      .where('list_id', '=', oldListId)
      .executeTakeFirstOrThrow()
    expect(sibling.suspension_list_id).toMatch(/^sl_/)
    // A credential issued now names that sibling, at its own index; the older one's bit is set there.
    const next = await expectStatus(
      h.post('/console/rwa/credentials', {
        jurisdiction: 'US',
        owner_did: old.owner_did,
        property_data: { ...old.property_data, title_deed: 'NEW-1' },
      }),
      201,
    )
    expect(next.credential_status[1].statusListCredential).toBe(
      `${PUBLIC_URL}/console/rwa/status/${sibling.suspension_list_id}`,
    )
    const list = await listOf(next.credential_status[1].statusListCredential)
    expect(list.purpose).toBe('suspension')
    expect(list.bits.get(Number(revocation.statusListIndex))).toBe(true)
    expect(list.bits.get(Number(next.credential_status[1].statusListIndex))).toBe(false)
    await expectStatus(h.post(`${credentialPath()}/reinstate`), 200)
    expect(
      (await listOf(next.credential_status[1].statusListCredential)).bits.get(
        Number(revocation.statusListIndex),
      ),
    ).toBe(false)
  })
})

describe('POST /console/rwa/attestations/{id}/suspend and /reinstate', () => {
  it('suspends the organization’s own attestation: it meets nothing until reinstated', async () => {
    const before = await expectStatus(h.get(attestationPath()), 200)
    expect((await transfer()).status).toBe('approved')
    const suspended = await expectStatus(h.post(`${attestationPath()}/suspend`, { reason: 'review' }), 200)
    expect(suspended).toEqual({ ...before, status: 'suspended' })
    expect(await bitsOf(suspended)).toEqual({ revoked: false, suspended: true })
    const refused = await transfer()
    expect(refused.status).toBe('rejected')
    expect(checkOf(refused.checks, 'kyc', 'SG')).toMatchObject({
      satisfied: false,
      reason: expect.stringMatching(new RegExp(`${w.attestations.kyc} .* is suspended since`)),
    })
    const again = await h.post(`${attestationPath()}/suspend`)
    expect([again.status, again.body.reason]).toEqual([409, 'attestation_already_suspended'])

    const reinstated = await expectStatus(h.post(`${attestationPath()}/reinstate`), 200)
    expect(reinstated).toEqual(before)
    expect(await bitsOf(reinstated)).toEqual({ revoked: false, suspended: false })
    expect((await transfer()).status).toBe('approved')
    const notSuspended = await h.post(`${attestationPath()}/reinstate`)
    expect([notSuspended.status, notSuspended.body.reason]).toEqual([409, 'attestation_not_suspended'])
  })

  it('keeps revocation final, and refuses a trusted issuer’s attestation with 409 attestation_external', async () => {
    await expectStatus(h.post(`${attestationPath('aml')}/suspend`), 200)
    expect((await expectStatus(h.post(`${attestationPath('aml')}/revoke`), 200)).status).toBe('revoked')
    for (const change of ['suspend', 'reinstate']) {
      const res = await h.post(`${attestationPath('aml')}/${change}`)
      expect([res.status, res.body.reason]).toEqual([409, 'attestation_revoked'])
    }

    const provider = await TestIssuer.start({ now: () => new Date(h.clock.now()) })
    try {
      await expectStatus(
        h.post('/console/rwa/issuers', {
          issuer_id: 'acme-kyc',
          name: 'Acme KYC',
          did: provider.did,
          requirements: { kyc: ['KYCCredential'] },
          jurisdictions: ['US'],
        }),
        201,
      )
      const { vc_jwt } = await provider.issue({ subject: 'did:web:lion:bob' })
      const external = await expectStatus(h.post('/console/rwa/attestations', { vc_jwt }), 201)
      for (const change of ['suspend', 'reinstate']) {
        const res = await h.post(`/console/rwa/attestations/${external.attestation_id}/${change}`)
        expect([res.status, res.body.reason]).toEqual([409, 'attestation_external'])
      }
    } finally {
      await provider.stop()
    }
  })
})

describe('who may suspend, and what it leaves', () => {
  it('needs the issuer role (403 role_required otherwise)', async () => {
    const acme = await h.createOrg('acme', { tier: 'pro' })
    w = await buildWorld(h, acme.key)
    const agent = await expectStatus(
      h.post('/console/billing/keys', { org_id: 'acme', name: 'agent', roles: ['agent'] }),
      201,
    )
    for (const path of [credentialPath(), attestationPath()]) {
      for (const change of ['suspend', 'reinstate']) {
        const res = await h.post(`${path}/${change}`, {}, { key: agent.api_key })
        expect([res.status, res.body.reason]).toEqual([403, 'role_required'])
      }
    }
    const issuer = await expectStatus(
      h.post('/console/billing/keys', { org_id: 'acme', name: 'issuer', roles: ['issuer'] }),
      201,
    )
    await expectStatus(h.post(`${credentialPath()}/suspend`, {}, { key: issuer.api_key }), 200)
  })

  it('audits, logs and events each change in its transaction, the reason with the suspension', async () => {
    await expectStatus(h.post(`${credentialPath()}/suspend`, { reason: 'court order' }), 200)
    await expectStatus(h.post(`${credentialPath()}/reinstate`), 200)
    await expectStatus(h.post(`${attestationPath()}/suspend`, { reason: 'review' }), 200)
    await expectStatus(h.post(`${attestationPath()}/reinstate`), 200)
    const audit = await expectStatus(h.get('/console/audit', { query: { limit: 4 } }), 200)
    expect(audit.events.map((e: any) => [e.action, e.target])).toEqual([
      ['attestation.reinstated', { type: 'attestation', id: w.attestations.kyc }],
      ['attestation.suspended', { type: 'attestation', id: w.attestations.kyc }],
      ['credential.reinstated', { type: 'credential', id: w.credentialId }],
      ['credential.suspended', { type: 'credential', id: w.credentialId }],
    ])
    expect(audit.events[3].changes.after).toEqual({ reason: 'court order' })
    // Each is an entry of the transparency log.
    const checkpoint = await expectStatus(h.get('/console/audit/log/checkpoint'), 200)
    const logged = await expectStatus(
      h.get('/console/audit/log/entries', {
        query: { start: checkpoint.tree_size - 4, end: checkpoint.tree_size },
      }),
      200,
    )
    expect(logged.entries.map((e: any) => e.action)).toEqual([
      'credential.suspended',
      'credential.reinstated',
      'attestation.suspended',
      'attestation.reinstated',
    ])

    const events = await expectStatus(h.get('/console/events', { query: { limit: 4 } }), 200)
    expect(events.events.map((e: any) => [e.type, e.data.object.status])).toEqual([
      ['attestation.reinstated', 'active'],
      ['attestation.suspended', 'suspended'],
      ['credential.reinstated', 'active'],
      ['credential.suspended', 'suspended'],
    ])
  })

  it('is a batch operation for attestations, all or nothing', async () => {
    const res = await expectStatus(
      h.post('/console/rwa/batch', {
        operations: [
          { op: 'attestations.suspend', body: { attestation_id: w.attestations.kyc, reason: 'batch' } },
          { op: 'attestations.reinstate', body: { attestation_id: w.attestations.aml } },
        ],
      }),
      422,
    )
    expect(res.operation_problem.reason).toBe('attestation_not_suspended')
    expect((await expectStatus(h.get(attestationPath()), 200)).status).toBe('active')
    const done = await expectStatus(
      h.post('/console/rwa/batch', {
        operations: [{ op: 'attestations.suspend', body: { attestation_id: w.attestations.kyc } }],
      }),
      200,
    )
    expect(done.results[0]).toMatchObject({ status: 200, body: { status: 'suspended' } })
  })
})
