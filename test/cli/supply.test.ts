import { describe, expect, it, vi } from 'vitest'
import { newOrgCli, tokenThroughCli, useServerAndHome } from '../support/cli.js'

// One real server process; a few CLI runs on a loaded machine.
vi.setConfig({ testTimeout: 180_000 })

const shared = useServerAndHome()

const ALICE = 'did:web:acme:alice'
const BOB = 'did:web:lion:bob'

describe('rwa tokens mint|burn and the rules flags of the supply rules', () => {
  it('mints under max_supply, refuses one over with its hint, burns; sets and shows the new rules', async () => {
    const rwa = await newOrgCli(shared, 'supply')
    const { tokenId: id } = await tokenThroughCli(rwa, { owner: ALICE, holders: [BOB], titleDeed: 'SUP-1' })
    const rules = await rwa.json([
      'tokens',
      'rules',
      'set',
      id,
      '--max-supply',
      '1100',
      '--min-holding',
      '10',
      '--transfer-windows',
      '3600=500,86400=2000',
      '--lockup-days-after-receipt',
      '30',
    ])
    expect(rules.rules).toMatchObject({
      max_supply: 1100,
      min_holding: 10,
      transfer_windows: [
        { seconds: 3600, max_volume: 500 },
        { seconds: 86400, max_volume: 2000 },
      ],
      lockup_days_after_receipt: 30,
    })
    const shown = await rwa.run(['tokens', 'rules', 'get', id])
    expect(shown.stdout).toContain('transfer_windows\t3600s=500, 86400s=2000')

    const minted = await rwa.run([
      'tokens',
      'mint',
      id,
      '--to-did',
      BOB,
      '--jurisdiction',
      'US',
      '--amount',
      '100',
      '--reason',
      'round 2',
      '--yes',
    ])
    expect(minted.exitCode).toBe(0)
    expect(minted.stderr).toContain(`minted units of ${id}: supply now 1100`)
    const over = await rwa.run([
      'tokens',
      'mint',
      id,
      '--to-did',
      BOB,
      '--jurisdiction',
      'US',
      '--amount',
      '1',
      '--reason',
      'one more',
      '--yes',
    ])
    expect(over.exitCode).not.toBe(0)
    expect(over.stderr).toContain('over max_supply 1100 by 1')
    expect(over.stderr).toContain(`rwa tokens rules set ${id} --max-supply N`)

    const burnt = await rwa.json([
      'tokens',
      'burn',
      id,
      '--from-did',
      ALICE,
      '--jurisdiction',
      'US',
      '--amount',
      '40',
      '--reason',
      'redemption',
      '--yes',
    ])
    expect(burnt.supply).toBe(1060)
    const bad = await rwa.run(['tokens', 'rules', 'set', id, '--transfer-windows', '3600'])
    expect(bad.exitCode).toBe(2)
    expect(bad.stderr).toContain('--transfer-windows must be SECONDS=MAX_VOLUME pairs')
    await rwa.json(['tokens', 'rules', 'set', id, '--clear', 'transfer_windows,max_supply'])
    const after = await rwa.json(['tokens', 'rules', 'get', id])
    expect([after.transfer_windows, after.max_supply, after.min_holding]).toEqual([null, null, 10])
  })
})
