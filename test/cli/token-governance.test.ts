import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it, vi } from 'vitest'
import { api, newOrgCli, tokenThroughCli, useServerAndHome } from '../support/cli.js'

// One real server process; the operator's flow runs the CLI a few dozen times on a loaded machine.
vi.setConfig({ testTimeout: 180_000 })

const shared = useServerAndHome()

const ALICE = 'did:web:acme:alice'
const BOB = 'did:web:lion:bob'
const CAROL = 'did:web:lion:carol'

describe("the token agent's flow through the CLI", () => {
  it('pause → rejected with the reason → unpause → approved; freeze part → only the rest moves; forced transfer → proof verifies offline', async () => {
    const rwa = await newOrgCli(shared, 'agent')
    const { credential, tokenId: id } = await tokenThroughCli(rwa, {
      owner: ALICE,
      holders: [BOB, CAROL],
      titleDeed: 'TX-1',
    })
    const send = (amount: number, recipient = BOB) =>
      rwa.run([
        'transfers',
        'request',
        '--token-id',
        id,
        '--from',
        'US',
        '--to',
        'US',
        '--recipient-did',
        recipient,
        '--amount',
        String(amount),
      ])

    // Pause: the transfer is recorded as rejected and the CLI says why, exit 6.
    expect((await rwa.json(['tokens', 'pause', id, '--reason', 'corporate action'])).status).toBe('paused')
    const refused = await send(100)
    expect(refused.exitCode).toBe(6)
    expect(refused.stderr).toContain('token is paused')
    const check = await rwa.run([
      'transfers',
      'check',
      '--token-id',
      id,
      '--from',
      'US',
      '--to',
      'US',
      '--recipient-did',
      BOB,
      '--amount',
      '100',
    ])
    expect(check.exitCode).toBe(6)
    expect(check.stderr).toContain('nothing was recorded')
    expect((await rwa.json(['tokens', 'unpause', id])).status).toBe('active')
    const approved = await send(100)
    expect(approved.exitCode, approved.stderr).toBe(0)
    expect(approved.stderr).toContain('approved')

    // Freeze 800 of alice's 900: only 100 more can move.
    const frozen = await rwa.json([
      'tokens',
      'freeze',
      id,
      '--holder-did',
      ALICE,
      '--jurisdiction',
      'US',
      '--amount',
      '800',
      '--reason',
      'court order 12',
    ])
    expect(frozen.holdings).toEqual([
      { holder_did: ALICE, jurisdiction: 'US', amount: 900, frozen_amount: 800, frozen: false },
    ])
    const tooMuch = await send(101)
    expect(tooMuch.exitCode).toBe(6)
    expect(tooMuch.stderr).toContain('only 100 can be sent, 1 fewer than the 101 requested')
    expect((await send(100)).exitCode).toBe(0)
    const table = await rwa.run(['tokens', 'holdings', id])
    expect(table.exitCode).toBe(0)
    expect(table.stdout).toContain('frozen_amount')
    const holdings = await rwa.json(['tokens', 'holdings', id, '--holder-did', ALICE])
    expect(holdings.holdings).toEqual([
      { holder_did: ALICE, jurisdiction: 'US', amount: 800, frozen_amount: 800, frozen: false },
    ])

    // A forced transfer takes frozen units by authority; its proof verifies offline from a saved file.
    const refusedWithoutYes = await rwa.run([
      'tokens',
      'force-transfer',
      id,
      '--from-did',
      ALICE,
      '--from',
      'US',
      '--to-did',
      CAROL,
      '--to',
      'US',
      '--amount',
      '300',
      '--reason',
      'court order 12',
    ])
    expect(refusedWithoutYes.exitCode).toBe(2)
    expect(refusedWithoutYes.stderr).toContain('without --yes')
    const forced = await rwa.json([
      'tokens',
      'force-transfer',
      id,
      '--from-did',
      ALICE,
      '--from',
      'US',
      '--to-did',
      CAROL,
      '--to',
      'US',
      '--amount',
      '300',
      '--reason',
      'court order 12',
      '--yes',
    ])
    expect(forced).toMatchObject({ status: 'forced', reason: 'court order 12', amount: 300 })
    const proof = await rwa.run(['proofs', 'get', forced.proof_id, '--json'])
    const file = join(shared.home.dir, 'forced-proof.json')
    writeFileSync(file, proof.stdout)
    const verified = await rwa.run(['proofs', 'verify', file])
    expect(verified.exitCode, verified.stderr).toBe(0)
    expect(verified.stdout).toContain('proof holds')
    expect(verified.stdout).toContain('(forced)')

    // Rules: set, read back, and a refusal that says by how much.
    await rwa.json(['tokens', 'rules', 'set', id, '--max-transfer-amount', '50', '--reason', 'prospectus'])
    expect(await rwa.json(['tokens', 'rules', 'get', id])).toMatchObject({
      max_transfer_amount: 50,
      max_holders: null,
    })
    const overRule = await rwa.run([
      'transfers',
      'request',
      '--token-id',
      id,
      '--from',
      'US',
      '--to',
      'US',
      '--recipient-did',
      CAROL,
      '--amount',
      '60',
      '--sender-did',
      BOB,
    ])
    expect(overRule.exitCode).toBe(6)
    expect(overRule.stderr).toContain('amount 60 is over max_transfer_amount 50 by 10')
    await rwa.json(['tokens', 'rules', 'set', id, '--clear', 'max_transfer_amount'])
    expect((await rwa.json(['tokens', 'rules', 'get', id])).max_transfer_amount).toBeNull()

    // Recovery, then the whole history, page by page.
    const recovered = await rwa.json([
      'tokens',
      'recover',
      id,
      '--lost-did',
      CAROL,
      '--new-did',
      BOB,
      '--reason',
      'lost keys',
      '--yes',
    ])
    expect(recovered.moved).toEqual([
      { holder_did: BOB, jurisdiction: 'US', amount: 300, frozen_amount: 0, frozen: false },
    ])
    // Its proof names the recovery's log position, as the answer does
    // (docs/governance.md, "The verifiable log").
    expect(recovered.log_index).toEqual(expect.any(Number))
    const recoveryProof = await rwa.run(['proofs', 'get', recovered.proof_id])
    expect(recoveryProof.stdout).toMatch(new RegExp(`log_index\\s+${recovered.log_index}\\b`))
    const history = await rwa.json(['tokens', 'history', id, '--all', '--limit', '3'])
    expect(history.governance_history.map((e: { event: string }) => e.event)).toEqual([
      'tokenized',
      'token_paused',
      'transfer_rejected',
      'token_unpaused',
      'transfer_approved',
      'units_frozen',
      'transfer_rejected',
      'transfer_approved',
      'transfer_forced',
      'rules_updated',
      'transfer_rejected',
      'rules_updated',
      'identity_recovered',
    ])
    expect((await rwa.run(['tokens', 'get', id])).stdout).toContain('identity_recovered')

    // Revocation any verifier can see: the public status list says revoked.
    expect((await rwa.run(['credentials', 'status', credential.credential_id])).stdout).toContain(
      'active: bit',
    )
    // A VC-JWT saved before the revocation: credentials verify reads its status list too.
    const saved = join(shared.home.dir, 'credential.jwt')
    writeFileSync(saved, credential.vc_jwt)
    const holds = await rwa.run(['credentials', 'verify', saved])
    expect(holds.exitCode, holds.stderr).toBe(0)
    expect(holds.stdout).toContain('not revoked per its status list')
    await rwa.json(['credentials', 'revoke', credential.credential_id, '--yes'])
    const revoked = await rwa.run(['credentials', 'status', credential.credential_id])
    expect(revoked.exitCode).toBe(8)
    expect(revoked.stdout).toContain('revoked: bit')
    const refusedVc = await rwa.run(['credentials', 'verify', saved])
    expect(refusedVc.exitCode).toBe(8)
    expect(refusedVc.stderr).toContain('revoked: bit')
  })

  it('rwa tokens frozen-holders: TSV when piped, --json as the API, pages with --limit, --cursor and --all, ids with -q', async () => {
    const rwa = await newOrgCli(shared, 'agent-frozen')
    const { tokenId: id } = await tokenThroughCli(rwa, { owner: ALICE, holders: [BOB], titleDeed: 'TX-F' })
    const frozenHolders = (...args: string[]) => rwa.run(['tokens', 'frozen-holders', id, ...args])
    const none = await frozenHolders()
    expect(none.exitCode, none.stderr).toBe(0)
    expect(none.stdout).toBe('holder_did')
    expect(none.stderr).toContain('0 of 0 frozen holders')

    // Frozen as whole holders: one holding units, one with a kyc attestation only, one unknown.
    for (const did of [CAROL, ALICE, BOB]) {
      await rwa.json(['tokens', 'freeze', id, '--holder-did', did, '--reason', 'sanctions hit'])
    }
    const all = await rwa.json(['tokens', 'frozen-holders', id])
    expect(all).toEqual(await api(shared.server.url, `/console/rwa/tokens/${id}/frozen-holders`, rwa.key))
    expect([...all.frozen_holders].sort()).toEqual([ALICE, BOB, CAROL].sort())
    expect(all).toMatchObject({ total: 3, next_cursor: null })

    const piped = await frozenHolders()
    expect(piped.stdout).toBe(['holder_did', ...all.frozen_holders].join('\n'))
    expect(piped.stderr).toContain('3 of 3 frozen holders')

    const first = await rwa.json(['tokens', 'frozen-holders', id, '--limit', '2'])
    expect(first.frozen_holders).toEqual(all.frozen_holders.slice(0, 2))
    expect(first.next_cursor).toEqual(expect.any(String))
    const page = await frozenHolders('--limit', '2')
    expect(page.stderr).toContain(`2 of 3 frozen holders; more with --cursor ${first.next_cursor} or --all`)
    expect(
      await rwa.json(['tokens', 'frozen-holders', id, '--limit', '2', '--cursor', first.next_cursor]),
    ).toEqual({
      frozen_holders: all.frozen_holders.slice(2),
      total: 3,
      next_cursor: null,
    })
    expect(await rwa.json(['tokens', 'frozen-holders', id, '--all', '--limit', '1'])).toEqual(all)
    const quiet = await frozenHolders('--all', '--limit', '1', '-q')
    expect(quiet.stdout).toBe(all.frozen_holders.join('\n'))

    // The token's detail says how many there are, and where to list them.
    const detail = await rwa.run(['tokens', 'get', id])
    expect(detail.stderr).toContain(`3 DIDs frozen as a whole; listed by \`rwa tokens frozen-holders ${id}\``)
    const unknown = await rwa.run(['tokens', 'frozen-holders', 'tok_01ABCDEFGHJKMNPQRSTVWXYZ00'])
    expect(unknown.exitCode).toBe(4)
    const badLimit = await rwa.run(['tokens', 'frozen-holders', id, '--limit', '0'])
    expect(badLimit.exitCode).toBe(2)
    expect(badLimit.stderr).toContain('--limit')
  })

  it('names the flag at fault', async () => {
    const rwa = await newOrgCli(shared, 'agent-flags')
    const noHolder = await rwa.run(['tokens', 'freeze', 'tok_x', '--no-input'])
    expect(noHolder.exitCode).toBe(2)
    expect(noHolder.stderr).toContain('--holder-did')
    const noJurisdiction = await rwa.run(['tokens', 'freeze', 'tok_x', '--holder-did', BOB, '--amount', '5'])
    expect(noJurisdiction.exitCode).toBe(2)
    expect(noJurisdiction.stderr).toContain('--amount needs --jurisdiction')
    const badCap = await rwa.run(['tokens', 'rules', 'set', 'tok_x', '--max-holders', 'SG'])
    expect(badCap.exitCode).toBe(2)
    expect(badCap.stderr).toContain('--max-holders')
    const unknown = await rwa.run(['tokens', 'pause', 'tok_01ABCDEFGHJKMNPQRSTVWXYZ00'])
    expect(unknown.exitCode).toBe(4)
  })
})
