import { describe, expect, it, vi } from 'vitest'
import { cliAs, newOrgCli, tokenThroughCli, useServerAndHome } from '../support/cli.js'

/*
 * Four eyes through the CLI, as an operator would run it (docs/accountability.md, "Four eyes"): the owner sets the policy, agent
 * A's forced transfer waits (exit 0, printing the approval and how to approve it), A cannot approve its
 * own, agent B approves and the transfer is made, printed as a transfer; a recovery requested by A is
 * rejected by B; once A's key is revoked, what A asked for reads cancelled and never runs.
 */

vi.setConfig({ testTimeout: 180_000 })

const shared = useServerAndHome()

const ALICE = 'did:web:acme:alice'
const BOB = 'did:web:lion:bob'

describe('rwa policy and rwa approvals', () => {
  it('owner turns four eyes on; agent A requests a forced transfer; A cannot approve it; agent B does', async () => {
    const owner = await newOrgCli(shared, 'four-eyes')
    const made = await Promise.all(
      ['agent-a', 'agent-b'].map((name) => owner.json(['keys', 'create', '--name', name, '--role', 'agent'])),
    )
    const [a, b] = made.map((key) => cliAs(shared, key.api_key))

    const set = await owner.run(['policy', 'set', '--require-approval', 'forced_transfer,recover'])
    expect(set.exitCode, set.stderr).toBe(0)
    expect(set.stderr).toContain('four eyes on for forced_transfer, recover')
    // Piped: TSV.
    const shown = await a!.run(['policy', 'show'])
    expect(shown.stdout).toContain('require_approval\tforced_transfer,recover')
    const notOwner = await a!.run(['policy', 'set', '--require-approval', 'unfreeze'])
    expect(notOwner.exitCode).toBe(3)

    const { tokenId } = await tokenThroughCli(owner, { owner: ALICE, holders: [BOB], titleDeed: 'FE-1' })
    const force = [
      'tokens',
      'force-transfer',
      tokenId,
      '--from-did',
      ALICE,
      '--from',
      'US',
      '--to-did',
      BOB,
      '--to',
      'US',
      '--amount',
      '250',
      '--reason',
      'court order 9',
      '--yes',
    ]

    // Agent A: the transfer waits for a second key; the command succeeds, saying how to approve it.
    const requested = await a!.run(force)
    expect(requested.exitCode, requested.stderr).toBe(0)
    const id = /rwa approvals approve (apr_\w+)/.exec(requested.stderr)?.[1]
    expect(id, requested.stderr).toBeDefined()
    expect(requested.stdout).toContain(`approval_id\t${id}`)
    expect(requested.stdout).toContain('status\tpending')
    const holdings = async () =>
      (await owner.json(['tokens', 'holdings', tokenId])).holdings.map((h: any) => [h.holder_did, h.amount])
    expect(await holdings()).toEqual([[ALICE, 1000]])

    const pending = await b!.run(['approvals', 'list', '--status', 'pending'])
    const lines = pending.stdout.trim().split('\n')
    expect(lines[0]).toBe('approval_id\toperation\ttarget\tstatus\trequested_by\trequested_at\texpires_at')
    expect(lines.slice(1).map((l) => l.split('\t').slice(0, 4))).toEqual([
      [id, 'forced_transfer', `token ${tokenId}`, 'pending'],
    ])

    // A cannot approve its own: exit 3 (forbidden) with a hint naming the way.
    const own = await a!.run(['approvals', 'approve', id!, '--yes'])
    expect(own.exitCode).toBe(3)
    expect(own.stderr).toContain('another key with the agent role')

    // B approves: the operation's own answer, the transfer made now.
    const approved = await b!.json(['approvals', 'approve', id!, '--yes'])
    expect(approved).toMatchObject({ status: 'forced', amount: 250, sender_did: ALICE, recipient_did: BOB })
    expect((await holdings()).sort()).toEqual([
      [ALICE, 750],
      [BOB, 250],
    ])
    expect(await owner.json(['approvals', 'get', id!])).toMatchObject({ status: 'approved' })
    const again = await b!.run(['approvals', 'approve', id!, '--yes'])
    expect(again.exitCode).toBe(5)

    // Printed as the CLI prints a transfer (`rwa transfers request`): its fields and its compliance
    // checks, never the answer's JSON.
    const second = await a!.json([...force.slice(0, 12), '5', '--reason', 'court order 10', '--yes'])
    const shownApproval = await b!.run(['approvals', 'approve', second.approval_id, '--yes'])
    expect(shownApproval.exitCode, shownApproval.stderr).toBe(0)
    const fields = Object.fromEntries(
      shownApproval.stdout
        .trim()
        .split('\n\n')[0]!
        .split('\n')
        .map((line) => line.split('\t')),
    )
    expect(fields).toMatchObject({
      field: 'value',
      status: 'forced',
      token_id: tokenId,
      route: 'US -> US',
      sender_did: ALICE,
      recipient_did: BOB,
      amount: '5',
      reason: 'court order 10',
    })
    expect(fields.transfer_id).toMatch(/^tx_/)
    expect(shownApproval.stdout).toContain('requirement\tjurisdiction\tsatisfied\tevidence\treason')
    expect(shownApproval.stdout).not.toContain('{')
    expect(shownApproval.stderr).toContain(
      `approved ${second.approval_id}: forced transfer ${fields.transfer_id}; proof ${fields.proof_id}`,
    )

    // A recovery A requests, B rejects: it never runs.
    const recovery = await a!.json([
      'tokens',
      'recover',
      tokenId,
      '--lost-did',
      BOB,
      '--new-did',
      ALICE,
      '--reason',
      'lost keys',
      '--yes',
    ])
    expect(recovery).toMatchObject({ operation: 'recover', status: 'pending' })
    const rejected = await b!.run(['approvals', 'reject', recovery.approval_id, '--reason', 'not verified'])
    expect(rejected.exitCode, rejected.stderr).toBe(0)
    const listed = await owner.json(['approvals', 'list', '--status', 'rejected'])
    expect(listed.approvals.map((x: any) => [x.approval_id, x.reason])).toEqual([
      [recovery.approval_id, 'not verified'],
    ])
    expect((await holdings()).sort()).toEqual([
      [ALICE, 745],
      [BOB, 255],
    ])

    // A's key revoked: what A asked for and nobody decided yet is cancelled, and never runs.
    const orphan = await a!.json([...force.slice(0, 12), '7', '--reason', 'court order 11', '--yes'])
    const revoked = await owner.run(['keys', 'revoke', made[0].key_id, '--yes'])
    expect(revoked.exitCode, revoked.stderr).toBe(0)
    const cancelled = await b!.run(['approvals', 'list', '--status', 'cancelled'])
    expect(
      cancelled.stdout
        .trim()
        .split('\n')
        .slice(1)
        .map((l) => l.split('\t').slice(0, 4)),
    ).toEqual([[orphan.approval_id, 'forced_transfer', `token ${tokenId}`, 'cancelled']])
    const late = await b!.run(['approvals', 'approve', orphan.approval_id, '--yes'])
    expect(late.exitCode).toBe(5)
    expect(late.stderr).toContain('the key that asked for it is revoked or expired')
    expect((await holdings()).sort()).toEqual([
      [ALICE, 745],
      [BOB, 255],
    ])
  })
})
