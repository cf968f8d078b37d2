import { afterEach, describe, expect, it } from 'vitest'
import { type Jwks, proofSchema, tokenDetailSchema, transferDetailSchema } from '../../src/contract/rwa.js'
import { verifyProof } from '../../src/proof/verify.js'
import { SG, US } from '../support/governance.js'
import { type ServerProcess, startServerProcess } from '../support/server-process.js'

let server: ServerProcess | undefined
let afterRestart: (() => Promise<void>) | undefined
afterEach(async () => {
  await server?.cleanup()
  server = undefined
  await afterRestart?.()
  afterRestart = undefined
})

/** A JSON call over real HTTP; fails the test with the body when the status is not the expected one. */
async function call(
  base: string,
  key: string | null,
  method: string,
  path: string,
  expected: number,
  body?: unknown,
): Promise<any> {
  const res = await fetch(new URL(path, base), {
    method,
    headers: {
      ...(key ? { 'x-api-key': key } : {}),
      ...(body ? { 'content-type': 'application/json' } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await res.text()
  if (res.status !== expected)
    expect.fail(`${method} ${path}: expected ${expected}, got ${res.status}: ${text}`)
  return JSON.parse(text)
}

describe("a compliance officer's day (real server process over a SQLite file)", () => {
  it('registers, trusts, credentials, attests, tokenizes, transfers; a revoked credential stops the next transfer', async () => {
    server = await startServerProcess()
    const base = server.url
    const created = await call(base, server.adminKey, 'POST', '/console/billing/keys', 201, {
      org_id: 'harbour-capital',
      name: 'compliance desk',
      start_trial: true,
    })
    const key: string = created.api_key
    const api = (method: string, path: string, expected: number, body?: unknown) =>
      call(base, key, method, path, expected, body)

    // Morning: the two jurisdictions and their requirements.
    const us = await api('POST', '/console/rwa/jurisdictions', 201, US)
    expect(us.issuer_did).toMatch(/^did:key:z6Mk/)
    await api('POST', '/console/rwa/jurisdictions', 201, SG)
    const trust = await api('POST', '/console/rwa/jurisdictions/trust', 201, {
      from_jurisdiction: 'US',
      to_jurisdiction: 'SG',
    })
    expect(trust).toMatchObject({
      from_jurisdiction: 'US',
      to_jurisdiction: 'SG',
      mutual: false,
      status: 'active',
    })

    // The property credential and the attestations.
    const owner = 'did:web:harbour:alice'
    const buyer = 'did:web:lionfund:bob'
    const credential = await api('POST', '/console/rwa/credentials', 201, {
      jurisdiction: 'US',
      owner_did: owner,
      property_data: {
        address: '350 Fifth Avenue, New York, NY',
        type: 'commercial',
        value_usd: 12_000_000,
        title_deed: 'NY-2026-0042',
      },
    })
    expect(credential).toMatchObject({ status: 'active', issuer_did: us.issuer_did })
    for (const type of ['kyc', 'aml', 'investor_qualification']) {
      await api('POST', '/console/rwa/attestations', 201, {
        jurisdiction: 'US',
        subject_did: buyer,
        type,
        attester: 'Veritas Compliance',
        valid_until: '2099-01-01T00:00:00Z',
      })
    }
    await api('POST', '/console/rwa/attestations', 201, {
      jurisdiction: 'US',
      subject_did: owner,
      type: 'title_verification',
      attester: 'First American Title',
      credential_id: credential.credential_id,
    })

    // Tokenize and transfer.
    const token = await api('POST', '/console/rwa/tokenize', 201, {
      credential_id: credential.credential_id,
      total_supply: 1_000_000,
      symbol: 'NY350',
    })
    const transferRequest = {
      token_id: token.token_id,
      from_jurisdiction: 'US',
      to_jurisdiction: 'SG',
      recipient_did: buyer,
      amount: 250_000,
    }
    const approved = await api('POST', '/console/rwa/transfers', 201, transferRequest)
    expect(approved.status).toBe('approved')
    expect(approved.proof_id).toMatch(/^prf_/)
    expect(approved.compliance_details).toMatchObject({
      source_requirements: ['kyc', 'aml', 'title_verification'],
      target_requirements: ['kyc', 'aml', 'investor_qualification'],
      all_satisfied: true,
    })
    const proof = proofSchema.parse(await api('GET', `/console/rwa/proofs/${approved.proof_id}`, 200))
    expect(proof.decision).toBe('approved')
    const jwks = (await call(base, null, 'GET', '/console/rwa/.well-known/jwks.json', 200)) as Jwks
    expect(await verifyProof(proof, jwks)).toEqual({ valid: true, kid: proof.kid })
    const detail = transferDetailSchema.parse(
      await api('GET', `/console/rwa/transfers/${approved.transfer_id}`, 200),
    )
    expect(detail.proof).toEqual(proof)

    // Afternoon: the title is disputed; the credential is revoked and the next transfer is rejected.
    await api('POST', `/console/rwa/credentials/${credential.credential_id}/revoke`, 200, {
      reason: 'title dispute filed in NY Supreme Court',
    })
    const rejected = await api('POST', '/console/rwa/transfers', 201, { ...transferRequest, amount: 1000 })
    expect(rejected.status).toBe('rejected')
    expect(rejected.compliance_details.all_satisfied).toBe(false)
    const failures = rejected.compliance_details.checks.filter((c: any) => !c.satisfied)
    expect(failures.map((c: any) => c.requirement)).toEqual(['token_active', 'credential_valid'])
    expect(failures[1].reason).toMatch(
      new RegExp(
        `^credential ${credential.credential_id} was revoked at .+ \\(title dispute filed in NY Supreme Court\\)$`,
      ),
    )
    const rejectedProof = proofSchema.parse(await api('GET', `/console/rwa/proofs/${rejected.proof_id}`, 200))
    expect(await verifyProof(rejectedProof, jwks)).toMatchObject({ valid: true })

    // The token's history tells the whole day, and the holdings reflect only the approved transfer.
    const history = tokenDetailSchema.parse(await api('GET', `/console/rwa/tokens/${token.token_id}`, 200))
    expect(history.governance_history.map((e) => e.event)).toEqual([
      'tokenized',
      'transfer_approved',
      'credential_revoked',
      'transfer_rejected',
    ])
    expect(history.governance_history[1]!.details).toMatchObject({
      transfer_id: approved.transfer_id,
      amount: 250_000,
    })
    expect(history.governance_history[3]!.details).toMatchObject({ transfer_id: rejected.transfer_id })
    expect(history.status).toBe('frozen')
    expect(history.holdings).toEqual([
      { holder_did: owner, jurisdiction: 'US', amount: 750_000, frozen_amount: 0, frozen: false },
      { holder_did: buyer, jurisdiction: 'SG', amount: 250_000, frozen_amount: 0, frozen: false },
    ])
    const listed = await api('GET', `/console/rwa/transfers?token_id=${token.token_id}`, 200)
    expect(listed.transfers.map((t: any) => [t.transfer_id, t.status])).toEqual([
      [rejected.transfer_id, 'rejected'],
      [approved.transfer_id, 'approved'],
    ])

    // After a restart on the same database, the same key still vouches for the morning's proof.
    const first = server
    expect(await first.stop()).toBe(0)
    server = await startServerProcess({ storage: first.storage })
    // The first process owns the storage: it is removed after the second stops.
    afterRestart = () => first.cleanup()
    const jwksAfter = (await call(server.url, null, 'GET', '/console/rwa/.well-known/jwks.json', 200)) as Jwks
    expect(jwksAfter).toEqual(jwks)
    const again = proofSchema.parse(
      await call(server.url, key, 'GET', `/console/rwa/proofs/${approved.proof_id}`, 200),
    )
    expect(await verifyProof(again, jwksAfter)).toEqual({ valid: true, kid: proof.kid })
    expect(server.stderr()).not.toMatch(/private|pkcs8/i)
  })
})
