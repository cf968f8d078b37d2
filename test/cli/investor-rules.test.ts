import { describe, expect, it, vi } from 'vitest'
import { countryCaps } from '../../src/cli/flags/parse.js'
import { newOrgCli, tokenThroughCli, useServerAndHome } from '../support/cli.js'

// One real server process; a handful of CLI runs.
vi.setConfig({ testTimeout: 120_000 })

const shared = useServerAndHome()

describe('rwa tokens rules set: the rules that read identities', () => {
  it('sets them by flag, keeps the others, clears by name, and names the flag of a bad value', async () => {
    const rwa = await newOrgCli(shared, 'investor-rules')
    const { tokenId: id } = await tokenThroughCli(rwa, {
      owner: 'did:web:acme:alice',
      holders: [],
      titleDeed: 'IR-1',
    })
    await rwa.json(['tokens', 'rules', 'set', id, '--max-transfer-amount', '50'])
    await rwa.json([
      'tokens',
      'rules',
      'set',
      id,
      '--country-allow',
      'US,GB',
      '--country-deny',
      'RU',
      '--max-holders-per-country',
      'US=2000,GB=500',
      '--max-ownership-percent',
      '12.5',
      '--allowed-categories',
      'accredited,institutional',
    ])
    expect(await rwa.json(['tokens', 'rules', 'get', id])).toMatchObject({
      max_transfer_amount: 50,
      country_allow: ['US', 'GB'],
      country_deny: ['RU'],
      max_holders_per_country: { US: 2000, GB: 500 },
      max_ownership_percent: 12.5,
      allowed_categories: ['accredited', 'institutional'],
    })
    const shown = await rwa.run(['tokens', 'rules', 'get', id])
    expect(shown.stdout).toMatch(/country_allow\s+US, GB/)
    expect(shown.stdout).toMatch(/max_holders_per_country\s+US=2000, GB=500/)
    await rwa.json(['tokens', 'rules', 'set', id, '--clear', 'country_deny,max_ownership_percent'])
    expect(await rwa.json(['tokens', 'rules', 'get', id])).toMatchObject({
      country_deny: null,
      max_ownership_percent: null,
      country_allow: ['US', 'GB'],
    })

    const lower = await rwa.run(['tokens', 'rules', 'set', id, '--country-allow', 'us'])
    expect(lower.exitCode).toBe(2)
    expect(lower.stderr).toContain('--country-allow')
    const percent = await rwa.run(['tokens', 'rules', 'set', id, '--max-ownership-percent', '150'])
    expect(percent.exitCode).toBe(2)
    expect(percent.stderr).toContain('--max-ownership-percent')
    const caps = await rwa.run(['tokens', 'rules', 'set', id, '--max-holders-per-country', 'US'])
    expect(caps.exitCode).toBe(2)
    expect(caps.stderr).toContain('--max-holders-per-country must be COUNTRY=N pairs')
  })

  it('refuses a country code that is not assigned, naming the flag, exit 2', async () => {
    const rwa = await newOrgCli(shared, 'investor-rules-country')
    const { tokenId: id } = await tokenThroughCli(rwa, {
      owner: 'did:web:acme:alice',
      holders: [],
      titleDeed: 'IR-2',
    })
    const notOne = (code: string) =>
      `expected an assigned ISO 3166-1 alpha-2 country code, e.g. US: ${code} is not one`
    for (const [flag, value, code] of [
      ['--country-allow', 'US,XX', 'XX'],
      ['--country-deny', 'EU', 'EU'],
      ['--max-holders-per-country', 'US=5,QQ=5', 'QQ'],
    ] as const) {
      const refused = await rwa.run(['tokens', 'rules', 'set', id, flag, value])
      expect(refused.exitCode, refused.stderr).toBe(2)
      expect(refused.stderr).toContain(`${flag}: ${notOne(code)}`)
    }
    await rwa.json([
      'tokens',
      'rules',
      'set',
      id,
      '--country-allow',
      'XK',
      '--max-holders-per-country',
      'XK=3',
    ])
    expect(await rwa.json(['tokens', 'rules', 'get', id])).toMatchObject({
      country_allow: ['XK'],
      max_holders_per_country: { XK: 3 },
    })
  })

  it('--max-holders-per-country reads COUNTRY=N pairs, repeated or comma-separated', () => {
    expect(countryCaps(['US=2000, GB=5', 'DE=0'], '--max-holders-per-country')).toEqual({
      US: 2000,
      GB: 5,
      DE: 0,
    })
    expect(() => countryCaps('US=-1', '--max-holders-per-country')).toThrow(/COUNTRY=N pairs, got "US=-1"/)
  })
})
