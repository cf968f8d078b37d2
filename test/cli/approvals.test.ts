import { describe, expect, it, vi } from 'vitest'
import { cliAs, newOrgCli, tokenThroughCli, useServerAndHome } from '../support/cli.js'

/*
 * Four eyes through the CLI, as an operator would run it (docs/accountability.md, "Four eyes"): the owner
 * sets the policy, agent A's forced transfer waits (exit 0, printing the approval and how to approve it),
 * A cannot approve its own, agent B approves and the transfer is made; a recovery requested by A is
 * rejected by B.
 */

vi.setConfig({ testTimeout: 180_000 })

const shared = useServerAndHome()

const ALICE = 'did:web:acme:alice'
const BOB = 'did:web:lion:bob'

describe('rwa policy and rwa approvals', () => {
  it('owner turns four eyes on; agent A requests a forced transfer; A cannot approve it; agent B does', async () => {
    const owner = await newOrgCli(shared, 'four-eyes')
    const [a, b] = await Promise.all(
      ['agent-a', 'agent-b'].map(async (name) =>
        cliAs(shared, (await owner.json(['keys', 'create', '--name', name, '--role', 'agent'])).api_key),
      ),
    )

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
      [ALICE, 750],
      [BOB, 250],
    ])
  })
})
