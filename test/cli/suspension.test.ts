import { describe, expect, it, vi } from 'vitest'
import { newOrgCli, tokenThroughCli, useServerAndHome } from '../support/cli.js'

/*
 * `rwa credentials|attestations suspend|reinstate` end to end, through the built CLI against a server
 * process (docs/governance.md, "Suspension"): the confirmation they ask for, the record they print,
 * the 409 of a second change, and `rwa credentials status` reading the suspension bit any verifier reads.
 */

vi.setConfig({ testTimeout: 120_000 })
const shared = useServerAndHome()
const ALICE = 'did:web:acme:alice'
const BOB = 'did:web:lion:bob'

describe('rwa credentials suspend|reinstate', () => {
  it('suspends after confirmation, is read as suspended through the public list, and reinstates', async () => {
    const rwa = await newOrgCli(shared, 'suspend-cred')
    const { credential } = await tokenThroughCli(rwa, { owner: ALICE, holders: [BOB], titleDeed: 'TX-S1' })
    const id = credential.credential_id

    // Without a terminal and without --yes, nothing is suspended.
    const unconfirmed = await rwa.run(['credentials', 'suspend', id, '--reason', 'title disputed'])
    expect(unconfirmed.exitCode).toBe(2)
    expect((await rwa.json(['credentials', 'get', id])).status).toBe('active')

    const suspended = await rwa.json(['credentials', 'suspend', id, '--reason', 'title disputed', '--yes'])
    expect(suspended).toMatchObject({ credential_id: id, status: 'suspended' })
    const shown = await rwa.run(['credentials', 'get', id])
    expect(shown.stdout).toMatch(/status\s+suspended/)

    const status = await rwa.run(['credentials', 'status', id])
    expect(status.exitCode).toBe(8)
    expect(status.stdout).toContain('suspended: bit')
    expect(status.stderr).toContain('the credential is suspended')

    const again = await rwa.run(['credentials', 'suspend', id, '--yes'])
    expect(again.exitCode).not.toBe(0)
    expect(again.exitCode).toBe(5) // a conflict
    expect(again.stderr).toContain('is suspended already')

    const reinstated = await rwa.run(['credentials', 'reinstate', id])
    expect(reinstated.exitCode, reinstated.stderr).toBe(0)
    expect(reinstated.stderr).toContain(`reinstated credential ${id}`)
    const active = await rwa.run(['credentials', 'status', id])
    expect(active.exitCode, active.stderr).toBe(0)
    expect(active.stdout).toContain('active: bit')
    const notSuspended = await rwa.run(['credentials', 'reinstate', id])
    expect(notSuspended.exitCode).not.toBe(0)
    expect(notSuspended.stderr).toContain('is not suspended')
  })
})

describe('rwa attestations suspend|reinstate', () => {
  it('suspends and reinstates the organization’s own attestation', async () => {
    const rwa = await newOrgCli(shared, 'suspend-att')
    await tokenThroughCli(rwa, { owner: ALICE, holders: [BOB], titleDeed: 'TX-S2' })
    const [kyc] = (await rwa.json(['attestations', 'list', '--subject-did', BOB])).attestations
    const suspended = await rwa.json([
      'attestations',
      'suspend',
      kyc.attestation_id,
      '--reason',
      'review',
      '--yes',
    ])
    expect(suspended).toMatchObject({ attestation_id: kyc.attestation_id, status: 'suspended' })
    const status = await rwa.run(['credentials', 'status', kyc.attestation_id])
    expect(status.exitCode).toBe(8)
    expect(status.stdout).toContain('suspended: bit')
    const reinstated = await rwa.json(['attestations', 'reinstate', kyc.attestation_id])
    expect(reinstated).toEqual({ ...suspended, status: 'active' })
    const printed = await rwa.run(['attestations', 'reinstate', kyc.attestation_id])
    expect(printed.exitCode).not.toBe(0)
    expect(printed.stderr).toContain('is not suspended')
  })
})
