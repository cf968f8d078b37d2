import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it, vi } from 'vitest'
import { api, cliAs, newOrgCli, useServerAndHome } from '../support/cli.js'

// One real server process for the file; every test registers its data in its own organization.
// Each test runs the CLI a dozen times or more; give it room on a loaded 2-core machine.
vi.setConfig({ testTimeout: 120_000 })

const shared = useServerAndHome()

describe('governance end to end through the CLI', () => {
  it('register jurisdictions -> trust -> credential -> attest -> tokenize -> transfer -> proof verify', async () => {
    const rwa = await newOrgCli(shared, 'flow')

    const us = await rwa.json([
      'jurisdictions',
      'register',
      '--id',
      'US',
      '--name',
      'United States',
      '--regulatory-body',
      'SEC',
      '--frameworks',
      'Reg D',
      '--transfer-requirements',
      'kyc,aml',
    ])
    expect(us).toMatchObject({
      jurisdiction_id: 'US',
      transfer_requirements: ['kyc', 'aml'],
      frameworks: ['Reg D'],
    })
    expect(us.issuer_did).toMatch(/^did:key:/)
    await rwa.json([
      'jurisdictions',
      'register',
      '--id',
      'SG',
      '--name',
      'Singapore',
      '--regulatory-body',
      'MAS',
      '--transfer-requirements',
      'kyc',
      '--transfer-requirements',
      'investor_qualification',
    ])
    expect(await rwa.json(['jurisdictions', 'get', 'SG'])).toEqual(
      await api(shared.server.url, '/console/rwa/jurisdictions/SG', rwa.key),
    )

    const trust = await rwa.json(['trust', 'establish', '--from', 'US', '--to', 'SG'])
    expect(trust).toMatchObject({
      from_jurisdiction: 'US',
      to_jurisdiction: 'SG',
      mutual: false,
      status: 'active',
    })

    const credential = await rwa.json([
      'credentials',
      'issue',
      '--jurisdiction',
      'US',
      '--owner-did',
      'did:web:acme:alice',
      '--address',
      '600 Congress Ave, Austin, TX',
      '--type',
      'commercial',
      '--value-usd',
      '48500000',
      '--title-deed',
      'TX-2019-004417',
    ])
    expect(credential).toMatchObject({ status: 'active', property_data: { value_usd: 48500000 } })

    for (const [jurisdiction, type] of [
      ['US', 'kyc'],
      ['US', 'aml'],
      ['SG', 'investor_qualification'],
    ]) {
      const attestation = await rwa.json([
        'attestations',
        'submit',
        '--jurisdiction',
        jurisdiction!,
        '--subject-did',
        'did:web:acme:bob',
        '--type',
        type!,
        '--attester',
        'Onfido',
      ])
      expect(attestation).toMatchObject({ type, subject_did: 'did:web:acme:bob' })
    }

    const token = await rwa.json([
      'tokens',
      'create',
      '--credential-id',
      credential.credential_id,
      '--total-supply',
      '1000',
      '--symbol',
      'ATX',
    ])
    expect(token.holdings).toEqual([
      { holder_did: 'did:web:acme:alice', jurisdiction: 'US', amount: 1000, frozen_amount: 0, frozen: false },
    ])

    const approved = await rwa.run([
      'transfers',
      'request',
      '--token-id',
      token.token_id,
      '--from',
      'US',
      '--to',
      'SG',
      '--recipient-did',
      'did:web:acme:bob',
      '--amount',
      '250',
      '--json',
    ])
    expect(approved.exitCode, approved.stderr).toBe(0)
    const transfer = JSON.parse(approved.stdout)
    expect(transfer).toMatchObject({ status: 'approved', compliance_details: { all_satisfied: true } })
    expect(transfer.proof_id).toMatch(/^prf_/)
    expect(await rwa.json(['transfers', 'get', transfer.transfer_id])).toEqual(
      await api(shared.server.url, `/console/rwa/transfers/${transfer.transfer_id}`, rwa.key),
    )

    // The proof holds: digest recomputed, signature checked against the server's trust bundle.
    const verified = await rwa.run(['proofs', 'verify', transfer.proof_id])
    expect(verified.exitCode, verified.stderr).toBe(0)
    expect(verified.stdout).toMatch(/proof holds/)
    expect((await rwa.json(['proofs', 'verify', transfer.proof_id])).valid).toBe(true)

    // A saved proof verifies from a file and from stdin; an altered one does not.
    const proof = await rwa.json(['proofs', 'get', transfer.proof_id])
    const file = join(shared.home.dir, 'proof.json')
    writeFileSync(file, JSON.stringify(proof))
    expect((await rwa.run(['proofs', 'verify', file])).exitCode).toBe(0)
    expect((await rwa.run(['proofs', 'verify', '-'], JSON.stringify(proof))).exitCode).toBe(0)
    writeFileSync(file, JSON.stringify({ ...proof, transfer: { ...proof.transfer, amount: 999 } }))
    const tampered = await rwa.run(['proofs', 'verify', file])
    expect(tampered.exitCode).toBe(8)
    expect(tampered.stderr).toMatch(/does NOT hold: digest does not match/)

    // The token's history records the tokenization and the transfer, oldest first.
    const detail = await rwa.json(['tokens', 'get', token.token_id])
    expect(detail.governance_history.map((e: { event: string }) => e.event)).toEqual([
      'tokenized',
      'transfer_approved',
    ])
    // A saved transfer detail carries its proof, and verifies too.
    const detailFile = join(shared.home.dir, 'transfer.json')
    writeFileSync(detailFile, JSON.stringify(await rwa.json(['transfers', 'get', transfer.transfer_id])))
    expect((await rwa.run(['proofs', 'verify', detailFile])).exitCode).toBe(0)
  })

  it('a transfer rejected by compliance prints its checks and exits 6', async () => {
    const rwa = await newOrgCli(shared, 'rejected')
    await rwa.json([
      'jurisdictions',
      'register',
      '--id',
      'US',
      '--name',
      'US',
      '--regulatory-body',
      'SEC',
      '--transfer-requirements',
      'kyc',
    ])
    await rwa.json([
      'jurisdictions',
      'register',
      '--id',
      'SG',
      '--name',
      'SG',
      '--regulatory-body',
      'MAS',
      '--transfer-requirements',
      'kyc',
    ])
    await rwa.json(['trust', 'establish', '--from', 'US', '--to', 'SG'])
    // A full body from stdin, with one field overridden by its flag.
    const issued = await rwa.run(
      ['credentials', 'issue', '--file', '-', '--value-usd', '500000', '--json'],
      JSON.stringify({
        jurisdiction: 'US',
        owner_did: 'did:web:acme:alice',
        property_data: { address: '1 Main St', type: 'residential', value_usd: 1, title_deed: 'TD-1' },
      }),
    )
    expect(issued.exitCode, issued.stderr).toBe(0)
    const credential = JSON.parse(issued.stdout)
    expect(credential.property_data).toEqual({
      address: '1 Main St',
      type: 'residential',
      value_usd: 500000,
      title_deed: 'TD-1',
    })
    const token = await rwa.json([
      'tokens',
      'create',
      '--credential-id',
      credential.credential_id,
      '--total-supply',
      '10',
    ])
    const args = [
      'transfers',
      'request',
      '--token-id',
      token.token_id,
      '--from',
      'US',
      '--to',
      'SG',
      '--recipient-did',
      'did:web:acme:carol',
      '--amount',
      '5',
    ]

    const human = await rwa.run(args)
    expect(human.exitCode).toBe(6)
    expect(human.stderr).toMatch(/^error: transfer tx_\S+ rejected by compliance: .*kyc/m)
    // The hint says what to do next, not again what the error said.
    expect(human.stderr).toMatch(
      /^hint: nothing moved; proof prf_\S+ records the decision, and `rwa transfers check`/m,
    )
    expect(human.stdout).toMatch(/rejected/)

    const json = await rwa.run([...args, '--json'])
    expect(json.exitCode).toBe(6)
    const transfer = JSON.parse(json.stdout)
    expect(transfer.status).toBe('rejected')
    expect(transfer.compliance_details.all_satisfied).toBe(false)
    // A rejected transfer's proof still holds: it proves the rejection.
    expect((await rwa.run(['proofs', 'verify', transfer.proof_id])).exitCode).toBe(0)

    // More than the sender holds is a conflict, recorded nowhere.
    const tooMuch = await rwa.run([...args.slice(0, -1), '11'])
    expect(tooMuch.exitCode).toBe(5)
    expect(tooMuch.stderr).toMatch(/Insufficient holding/)

    // Nothing moved.
    expect((await rwa.json(['tokens', 'get', token.token_id])).holdings).toEqual([
      { holder_did: 'did:web:acme:alice', jurisdiction: 'US', amount: 10, frozen_amount: 0, frozen: false },
    ])
  })

  it('exit codes: 2 missing flags, 3 plan required, 4 not found, 5 conflict', async () => {
    const rwa = await newOrgCli(shared, 'codes')

    const missing = await rwa.run(['credentials', 'issue', '--jurisdiction', 'US'])
    expect(missing.exitCode).toBe(2)
    expect(missing.stderr).toMatch(
      /missing required flags: --owner-did, --address, --type, --value-usd, --title-deed/,
    )

    const invalid = await rwa.run([
      'jurisdictions',
      'register',
      '--id',
      'not a code',
      '--name',
      'x',
      '--regulatory-body',
      'y',
    ])
    expect(invalid.exitCode).toBe(2)
    // The refused field is named by the flag that gave it (issue 13; it said jurisdiction_id before).
    expect(invalid.stderr).toMatch(/^error: --id: /m)

    const notFound = await rwa.run(['jurisdictions', 'get', 'XX'])
    expect(notFound.exitCode).toBe(4)

    await rwa.json(['jurisdictions', 'register', '--id', 'US', '--name', 'US', '--regulatory-body', 'SEC'])
    const duplicate = await rwa.run([
      'jurisdictions',
      'register',
      '--id',
      'US',
      '--name',
      'US',
      '--regulatory-body',
      'SEC',
    ])
    expect(duplicate.exitCode).toBe(5)

    // An organization on the free tier without a trial may not use governance.
    const free = (await api(shared.server.url, '/console/billing/keys', shared.server.adminKey, {
      method: 'POST',
      body: JSON.stringify({ org_id: 'codes-free', name: 'no trial' }),
    })) as { api_key: string }
    const planRequired = await cliAs(shared, free.api_key).run(['jurisdictions', 'list'])
    expect(planRequired.exitCode).toBe(3)
    expect(planRequired.stderr).toMatch(/rwa pricing/)
  })

  it('remove asks for --yes without a terminal, refuses while in use (5), and removes when free', async () => {
    const rwa = await newOrgCli(shared, 'remove')
    await rwa.json(['jurisdictions', 'register', '--id', 'US', '--name', 'US', '--regulatory-body', 'SEC'])
    await rwa.json(['jurisdictions', 'register', '--id', 'SG', '--name', 'SG', '--regulatory-body', 'MAS'])
    await rwa.json(['trust', 'establish', '--from', 'US', '--to', 'SG', '--mutual'])

    const credential = await rwa.json([
      'credentials',
      'issue',
      '--jurisdiction',
      'US',
      '--owner-did',
      'did:web:acme:zoe',
      '--address',
      '1 Marina Blvd',
      '--type',
      'office',
      '--value-usd',
      '900000',
      '--title-deed',
      'SG-1',
    ])
    const unconfirmedRevoke = await rwa.run(['credentials', 'revoke', credential.credential_id])
    expect(unconfirmedRevoke.exitCode).toBe(2)
    expect((await rwa.json(['credentials', 'get', credential.credential_id])).status).toBe('active')
    const revokedCredential = await rwa.json([
      'credentials',
      'revoke',
      credential.credential_id,
      '--reason',
      'sold',
      '--yes',
    ])
    expect(revokedCredential).toMatchObject({ status: 'revoked', revocation_reason: 'sold' })
    expect((await rwa.run(['credentials', 'revoke', credential.credential_id, '--yes'])).exitCode).toBe(5)

    const unconfirmed = await rwa.run(['jurisdictions', 'remove', 'SG'])
    expect(unconfirmed.exitCode).toBe(2)
    expect(unconfirmed.stderr).toMatch(/without --yes/)
    const inUse = await rwa.run(['jurisdictions', 'remove', 'SG', '--yes'])
    expect(inUse.exitCode).toBe(5)

    const revoked = await rwa.json(['trust', 'revoke', '--from', 'US', '--to', 'SG', '--yes'])
    expect(revoked).toMatchObject({ status: 'revoked', mutual: true })
    expect(await rwa.json(['jurisdictions', 'remove', 'SG', '--yes'])).toEqual({
      status: 'removed',
      jurisdiction_id: 'SG',
    })
    expect((await rwa.run(['jurisdictions', 'get', 'SG'])).exitCode).toBe(4)
  })

  it('update changes only the flags given; lists page with --limit and follow next_cursor with --all', async () => {
    const rwa = await newOrgCli(shared, 'paging')
    for (const id of ['AA', 'BB', 'CC', 'DD', 'EE']) {
      await rwa.json([
        'jurisdictions',
        'register',
        '--id',
        id,
        '--name',
        id,
        '--regulatory-body',
        'R',
        '--transfer-requirements',
        'kyc',
      ])
    }
    const updated = await rwa.json(['jurisdictions', 'update', 'CC', '--name', 'Renamed'])
    expect(updated).toMatchObject({ name: 'Renamed', regulatory_body: 'R', transfer_requirements: ['kyc'] })

    const page = await rwa.json(['jurisdictions', 'list', '--limit', '2'])
    expect(page).toEqual(await api(shared.server.url, '/console/rwa/jurisdictions?limit=2', rwa.key))
    expect(page.jurisdictions).toHaveLength(2)
    expect(page.next_cursor).not.toBeNull()

    const all = await rwa.json(['jurisdictions', 'list', '--limit', '2', '--all'])
    expect(all.jurisdictions.map((j: { jurisdiction_id: string }) => j.jurisdiction_id).sort()).toEqual([
      'AA',
      'BB',
      'CC',
      'DD',
      'EE',
    ])
    expect(all.next_cursor).toBeNull()
    expect(all.total).toBe(5)

    const human = await rwa.run(['jurisdictions', 'list', '--limit', '2'])
    expect(human.stderr).toMatch(/2 of 5 jurisdictions; more with --cursor \S+ or --all/)
  })
})
