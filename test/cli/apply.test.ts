import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it, vi } from 'vitest'
import { stringify } from 'yaml'
import { api, newOrg, useServerAndHome } from '../support/cli.js'

// Each test runs the CLI a dozen times or more; give it room on a loaded 2-core machine.
vi.setConfig({ testTimeout: 120_000 })

const shared = useServerAndHome()

const manifest = {
  jurisdictions: [
    {
      jurisdiction_id: 'US',
      name: 'United States',
      regulatory_body: 'SEC',
      transfer_requirements: ['kyc', 'aml'],
    },
    { jurisdiction_id: 'SG', name: 'Singapore', regulatory_body: 'MAS', transfer_requirements: ['kyc'] },
    {
      jurisdiction_id: 'CH',
      name: 'Switzerland',
      regulatory_body: 'FINMA',
      transfer_requirements: ['kyc', 'title_verification'],
    },
  ],
  trust: [
    { from_jurisdiction: 'US', to_jurisdiction: 'SG', mutual: true },
    { from_jurisdiction: 'US', to_jurisdiction: 'CH' },
  ],
  credentials: [
    {
      ref: 'office',
      jurisdiction: 'US',
      owner_did: 'did:web:acme:alice',
      property_data: {
        address: '600 Congress Ave',
        type: 'commercial',
        value_usd: 48500000,
        title_deed: 'TX-1',
      },
    },
  ],
  attestations: [
    { jurisdiction: 'US', subject_did: 'did:web:acme:bob', type: 'kyc', attester: 'Onfido' },
    {
      jurisdiction: 'US',
      subject_did: 'did:web:acme:alice',
      type: 'title_verification',
      attester: 'Travis County Clerk',
      credential: 'office',
    },
  ],
}

/** Everything the organization has, read through the API (not the CLI). */
async function state(key: string) {
  const get = (path: string): Promise<any> => api(shared.server.url, path, key)
  return {
    jurisdictions: (await get('/console/rwa/jurisdictions')).jurisdictions,
    trust: (await get('/console/rwa/jurisdictions/trust')).trust_relations,
    credentials: (await get('/console/rwa/credentials')).credentials,
    attestations: (await get('/console/rwa/attestations')).attestations,
  }
}

describe('rwa apply', () => {
  it('--dry-run shows the plan and changes nothing; apply creates in dependency order; a second apply changes nothing', async () => {
    const key = await newOrg(shared.server.url, shared.server.adminKey, 'apply-flow')
    const env = { RWA_URL: shared.server.url, RWA_API_KEY: key }
    const file = join(shared.home.dir, 'governance.yaml')
    writeFileSync(file, stringify(manifest))

    const dry = await shared.home.run(['apply', '-f', file, '--dry-run', '--json'], { env })
    expect(dry.exitCode, dry.stderr).toBe(0)
    const plan = JSON.parse(dry.stdout)
    expect(plan).toMatchObject({
      dry_run: true,
      changed: false,
      summary: { create: 8, update: 0, unchanged: 0 },
    })
    expect(plan.changes.map((c: { kind: string }) => c.kind)).toEqual([
      'jurisdiction',
      'jurisdiction',
      'jurisdiction',
      'trust',
      'trust',
      'credential',
      'attestation',
      'attestation',
    ])
    expect(await state(key)).toEqual({ jurisdictions: [], trust: [], credentials: [], attestations: [] })

    const applied = await shared.home.run(['apply', '-f', file, '--json'], { env })
    expect(applied.exitCode, applied.stderr).toBe(0)
    expect(JSON.parse(applied.stdout).summary).toEqual({
      create: 8,
      update: 0,
      replace: 0,
      unchanged: 0,
      revoked: 0,
    })
    const after = await state(key)
    expect(after.jurisdictions).toHaveLength(3)
    expect(after.trust).toHaveLength(2)
    expect(after.credentials).toHaveLength(1)
    // The attestation's `credential: office` was resolved to the credential created in the same run.
    const title = after.attestations.find((a: any) => a.type === 'title_verification') as {
      credential_id: string
    }
    expect(title.credential_id).toBe((after.credentials[0] as { credential_id: string }).credential_id)

    const again = await shared.home.run(['apply', '-f', file], { env })
    expect(again.exitCode, again.stderr).toBe(0)
    expect(again.stderr).toMatch(/nothing to change: all 8 resources are up to date/)
    expect(await state(key)).toEqual(after)
  })

  it('applies only the difference: an edited jurisdiction is updated, a new attestation created', async () => {
    const key = await newOrg(shared.server.url, shared.server.adminKey, 'apply-diff')
    const env = { RWA_URL: shared.server.url, RWA_API_KEY: key }
    const file = join(shared.home.dir, 'diff.json')
    writeFileSync(file, JSON.stringify(manifest))
    expect((await shared.home.run(['apply', '-f', file], { env })).exitCode).toBe(0)

    const edited = structuredClone(manifest)
    edited.jurisdictions[1]!.transfer_requirements = ['kyc', 'investor_qualification']
    edited.attestations.push({
      jurisdiction: 'SG',
      subject_did: 'did:web:acme:bob',
      type: 'investor_qualification',
      attester: 'DBS',
    })
    // Read from stdin this time.
    const dry = await shared.home.run(['apply', '-f', '-', '--dry-run', '--json'], {
      env,
      input: JSON.stringify(edited),
    })
    const plan = JSON.parse(dry.stdout)
    expect(plan.summary).toEqual({ create: 1, update: 1, replace: 0, unchanged: 7, revoked: 0 })
    expect(plan.changes.find((c: any) => c.action === 'update')).toMatchObject({
      kind: 'jurisdiction',
      name: 'SG',
      fields: ['transfer_requirements'],
    })

    const applied = await shared.home.run(['apply', '-f', '-', '--json'], {
      env,
      input: JSON.stringify(edited),
    })
    expect(applied.exitCode, applied.stderr).toBe(0)
    const sg = (await api(shared.server.url, '/console/rwa/jurisdictions/SG', key)) as {
      transfer_requirements: string[]
    }
    expect(sg.transfer_requirements).toEqual(['kyc', 'investor_qualification'])
  })

  it('carries tokens with their transfer rules: tokenized once, rules updated when they differ', async () => {
    const key = await newOrg(shared.server.url, shared.server.adminKey, 'apply-tokens')
    const env = { RWA_URL: shared.server.url, RWA_API_KEY: key }
    const file = join(shared.home.dir, 'tokens.yaml')
    const withToken = {
      ...manifest,
      tokens: [
        {
          credential: 'office',
          total_supply: 1000,
          symbol: 'ATX',
          rules: {
            max_balance_per_holder: 500,
            max_holders: { SG: 50 },
            lockup_until: '2027-01-01T00:00:00Z',
          },
        },
      ],
    }
    writeFileSync(file, stringify(withToken))
    const applied = await shared.home.run(['apply', '-f', file, '--json'], { env })
    expect(applied.exitCode, applied.stderr).toBe(0)
    expect(JSON.parse(applied.stdout).summary).toEqual({
      create: 9,
      update: 0,
      replace: 0,
      unchanged: 0,
      revoked: 0,
    })
    const tokens = (await api(shared.server.url, '/console/rwa/tokens', key)) as { tokens: any[] }
    expect(tokens.tokens).toHaveLength(1)
    expect(tokens.tokens[0]).toMatchObject({
      symbol: 'ATX',
      total_supply: 1000,
      rules: {
        max_balance_per_holder: 500,
        max_holders: { SG: 50 },
        lockup_until: '2027-01-01T00:00:00.000Z',
        max_transfer_amount: null,
        daily_volume_per_holder: null,
      },
    })
    const again = await shared.home.run(['apply', '-f', file], { env })
    expect(again.stderr).toMatch(/nothing to change: all 9 resources are up to date/)

    withToken.tokens[0]!.rules = { max_balance_per_holder: 400 } as never
    writeFileSync(file, stringify(withToken))
    const updated = await shared.home.run(['apply', '-f', file, '--json'], { env })
    expect(updated.exitCode, updated.stderr).toBe(0)
    const change = JSON.parse(updated.stdout).changes.find((c: { kind: string }) => c.kind === 'token')
    expect(change).toMatchObject({ action: 'update', fields: ['rules'], id: tokens.tokens[0].token_id })
    const token = (await api(shared.server.url, `/console/rwa/tokens/${change.id}`, key)) as any
    expect(token.rules).toMatchObject({ max_balance_per_holder: 400, max_holders: null, lockup_until: null })

    // Supply is fixed once tokenized: apply stops (5) and changes nothing.
    withToken.tokens[0]!.total_supply = 2000
    writeFileSync(file, stringify(withToken))
    const fixed = await shared.home.run(['apply', '-f', file], { env })
    expect(fixed.exitCode).toBe(5)
    expect(fixed.stderr).toContain('differs from the manifest in total_supply')
  })

  it('stops before changing anything when a signed credential would have to change (5)', async () => {
    const key = await newOrg(shared.server.url, shared.server.adminKey, 'apply-immutable')
    const env = { RWA_URL: shared.server.url, RWA_API_KEY: key }
    expect(
      (await shared.home.run(['apply', '-f', '-'], { env, input: JSON.stringify(manifest) })).exitCode,
    ).toBe(0)
    const before = await state(key)

    const edited = structuredClone(manifest)
    edited.jurisdictions[0]!.name = 'USA'
    edited.credentials[0]!.property_data.value_usd = 50000000
    const run = await shared.home.run(['apply', '-f', '-'], { env, input: JSON.stringify(edited) })
    expect(run.exitCode).toBe(5)
    expect(run.stderr).toMatch(/differs from the manifest in value_usd; credentials are signed and immutable/)
    expect(run.stderr).toMatch(/^hint: revoke it/m)
    // The jurisdiction edit planned before the credential was not applied either.
    expect(await state(key)).toEqual(before)
  })

  it('reports a revoked credential of the manifest as revoked and never issues it again', async () => {
    const key = await newOrg(shared.server.url, shared.server.adminKey, 'apply-revoked')
    const env = { RWA_URL: shared.server.url, RWA_API_KEY: key }
    const first = await shared.home.run(['apply', '-f', '-', '--json'], {
      env,
      input: JSON.stringify(manifest),
    })
    expect(first.exitCode, first.stderr).toBe(0)
    const credentialId = JSON.parse(first.stdout).changes.find((c: any) => c.kind === 'credential').id
    const revoke = await shared.home.run(
      ['credentials', 'revoke', credentialId, '--reason', 'sold', '--yes'],
      { env },
    )
    expect(revoke.exitCode, revoke.stderr).toBe(0)

    // The same deed with other spacing and case is the same property.
    const respaced = structuredClone(manifest)
    respaced.credentials[0]!.property_data.title_deed =
      ` ${manifest.credentials[0]!.property_data.title_deed.toLowerCase()} `
    for (const input of [manifest, respaced]) {
      const again = await shared.home.run(['apply', '-f', '-', '--json'], {
        env,
        input: JSON.stringify(input),
      })
      expect(again.exitCode, again.stderr).toBe(0)
      const report = JSON.parse(again.stdout)
      expect(report.changed).toBe(false)
      expect(report.summary).toMatchObject({ create: 0, revoked: 1 })
      expect(report.changes.find((c: any) => c.kind === 'credential')).toMatchObject({
        action: 'revoked',
        id: credentialId,
        fields: [expect.stringMatching(/^revoked at .*: sold$/)],
      })
    }
    const table = await shared.home.run(['apply', '-f', '-'], { env, input: JSON.stringify(manifest) })
    expect(table.stderr).toMatch(/1 credential revoked, not issued again/)
    const credentials = (await api(shared.server.url, '/console/rwa/credentials', key)) as {
      credentials: unknown[]
    }
    expect(credentials.credentials).toHaveLength(1)
  })

  it("stops before changing anything when another owner's active credential has the title deed (5)", async () => {
    const key = await newOrg(shared.server.url, shared.server.adminKey, 'apply-deed-taken')
    const env = { RWA_URL: shared.server.url, RWA_API_KEY: key }
    expect(
      (await shared.home.run(['apply', '-f', '-'], { env, input: JSON.stringify(manifest) })).exitCode,
    ).toBe(0)
    const before = await state(key)
    const other = structuredClone(manifest)
    other.jurisdictions[0]!.name = 'USA'
    other.credentials[0]!.owner_did = 'did:web:evil:mallory'
    const run = await shared.home.run(['apply', '-f', '-'], { env, input: JSON.stringify(other) })
    expect(run.exitCode).toBe(5)
    expect(run.stderr).toMatch(/is already that of active credential cred_\w+ \(owner did:web:/)
    expect(await state(key)).toEqual(before)
  })

  it('refuses an invalid manifest with exit 2, naming each bad path, before any change', async () => {
    const key = await newOrg(shared.server.url, shared.server.adminKey, 'apply-bad')
    const env = { RWA_URL: shared.server.url, RWA_API_KEY: key }
    const bad = {
      jurisdictions: [{ jurisdiction_id: 'US', name: 'US' }],
      attestations: [
        { jurisdiction: 'US', subject_did: 'did:web:a:b', type: 'kyc', attester: 'x', credential: 'nope' },
      ],
    }
    const run = await shared.home.run(['apply', '-f', '-'], { env, input: JSON.stringify(bad) })
    expect(run.exitCode).toBe(2)
    expect(run.stderr).toMatch(/jurisdictions\.0\.regulatory_body/)
    expect((await state(key)).jurisdictions).toEqual([])

    const dangling = await shared.home.run(['apply', '-f', '-'], {
      env,
      input: JSON.stringify({ attestations: bad.attestations }),
    })
    expect(dangling.exitCode).toBe(2)
    expect(dangling.stderr).toMatch(/attestations\.0\.credential: no credential with ref nope/)

    // A key twice in one mapping, JSON or YAML: which one counts depends on the reader. Named.
    for (const input of [
      '{"jurisdictions":[{"jurisdiction_id":"US","name":"US","regulatory_body":"SEC","name":"Evil"}]}',
      'jurisdictions:\n  - jurisdiction_id: US\n    name: US\n    regulatory_body: SEC\n    name: Evil\n',
    ]) {
      const twice = await shared.home.run(['apply', '-f', '-'], { env, input })
      expect(twice.exitCode, input).toBe(2)
      expect(twice.stderr).toContain(
        'stdin: the key "name" appears twice in one object (at jurisdictions[0].name)',
      )
    }
    expect((await state(key)).jurisdictions).toEqual([])
  })

  it('refuses a manifest that holds nothing, or lists one resource twice, before anything is sent (2)', async () => {
    const key = await newOrg(shared.server.url, shared.server.adminKey, 'apply-twice')
    const env = { RWA_URL: shared.server.url, RWA_API_KEY: key }
    for (const input of ['', '{}', 'jurisdictions: []\n']) {
      const run = await shared.home.run(['apply', '-f', '-'], { env, input })
      expect(run.exitCode, input).toBe(2)
      expect(run.stderr).toContain('stdin holds no resources: nothing to apply')
    }

    const [us, sg] = manifest.jurisdictions
    const [office] = manifest.credentials
    const twice: Array<[object, string]> = [
      [
        { jurisdictions: [us, sg, { ...us, name: 'USA' }] },
        'jurisdictions.2: the same jurisdiction US as jurisdictions.0',
      ],
      // One active relation per pair, in either direction: one-way each way is one pair twice.
      [
        {
          jurisdictions: [us, sg],
          trust: [
            { from_jurisdiction: 'US', to_jurisdiction: 'SG' },
            { from_jurisdiction: 'SG', to_jurisdiction: 'US' },
          ],
        },
        'trust.1: the same trust between SG and US as trust.0',
      ],
      // Title deeds compare trimmed and case-insensitive, as the server compares them.
      [
        {
          jurisdictions: [us],
          credentials: [
            office,
            {
              ...office,
              ref: 'again',
              owner_did: 'did:web:acme:bob',
              property_data: { ...office!.property_data, title_deed: ' tx-1' },
            },
          ],
        },
        'credentials.1: the same title deed tx-1 in US as credentials.0',
      ],
      [
        {
          jurisdictions: [us],
          credentials: [office],
          tokens: [
            { credential: 'office', total_supply: 100, symbol: 'OFC' },
            { credential: 'office', total_supply: 200, symbol: 'OFD' },
          ],
        },
        'tokens.1: the same token of credential office as tokens.0',
      ],
    ]
    const attestation = { ...manifest.attestations[0]!, valid_until: '2027-06-01T00:00:00Z' }
    twice.push([
      {
        jurisdictions: [us],
        attestations: [attestation, { ...attestation, valid_until: '2027-06-01T00:00:00.000Z' }],
      },
      'attestations.1: the same attestation',
    ])
    for (const [listed, message] of twice) {
      const run = await shared.home.run(['apply', '-f', '-', '--dry-run'], {
        env,
        input: JSON.stringify(listed),
      })
      expect(run.exitCode, run.stderr).toBe(2)
      expect(run.stderr).toContain(message)
    }
    expect((await state(key)).jurisdictions).toEqual([])

    // A token by a credential's ref and another by its id are one token: told once the ref's
    // credential is known (it exists), before anything is sent.
    const base = { jurisdictions: [us], credentials: [office] }
    const made = await shared.home.run(['apply', '-f', '-', '--json'], { env, input: JSON.stringify(base) })
    expect(made.exitCode, made.stderr).toBe(0)
    const officeId = (await state(key)).credentials[0].credential_id as string
    const byRefAndId = await shared.home.run(['apply', '-f', '-'], {
      env,
      input: JSON.stringify({
        ...base,
        tokens: [
          { credential: 'office', total_supply: 100, symbol: 'OFC' },
          { credential_id: officeId, total_supply: 100, symbol: 'OFC' },
        ],
      }),
    })
    expect(byRefAndId.exitCode).toBe(2)
    expect(byRefAndId.stderr).toContain(`tokens.1: the same token of credential ${officeId} as tokens.0`)
    expect(
      ((await api(shared.server.url, '/console/rwa/tokens', key)) as { tokens: unknown[] }).tokens,
    ).toEqual([])
  })

  it('applies all or nothing: a trust entry naming an unknown jurisdiction fails the dry run and the apply, naming trust[0], and nothing is created', async () => {
    const key = await newOrg(shared.server.url, shared.server.adminKey, 'apply-atomic')
    const env = { RWA_URL: shared.server.url, RWA_API_KEY: key }
    const file = join(shared.home.dir, 'atomic.yaml')
    const broken = {
      ...manifest,
      trust: [{ from_jurisdiction: 'US', to_jurisdiction: 'XX' }, ...manifest.trust],
    }
    writeFileSync(file, stringify(broken))
    const empty = await state(key)

    const dry = await shared.home.run(['apply', '-f', file, '--dry-run'], { env })
    expect(dry.exitCode).toBe(4)
    expect(dry.stderr).toContain('trust[0] (trust US -> XX): No jurisdiction with id XX')
    expect(await state(key)).toEqual(empty)

    const real = await shared.home.run(['apply', '-f', file], { env })
    expect(real.exitCode).toBe(4)
    expect(real.stderr).toContain('trust[0] (trust US -> XX)')
    expect(real.stderr).toContain('nothing was applied')
    // The jurisdictions before it in the manifest were not created either.
    expect(await state(key)).toEqual(empty)

    writeFileSync(file, stringify(manifest))
    const fixed = await shared.home.run(['apply', '-f', file, '--json'], { env })
    expect(fixed.exitCode, fixed.stderr).toBe(0)
    expect((await state(key)).jurisdictions).toHaveLength(3)
  })
})

describe('rwa apply, what it prints', () => {
  it('piped, the plan is TSV whose header names every column', async () => {
    const key = await newOrg(shared.server.url, shared.server.adminKey, 'apply-tsv')
    const env = { RWA_URL: shared.server.url, RWA_API_KEY: key }
    const file = join(shared.home.dir, 'tsv.yaml')
    writeFileSync(file, stringify({ jurisdictions: manifest.jurisdictions.slice(0, 1) }))
    const dry = await shared.home.run(['apply', '-f', file, '--dry-run'], { env })
    expect(dry.exitCode, dry.stderr).toBe(0)
    const [head, row] = dry.stdout.split('\n')
    expect(head).toBe('mark\taction\tkind\tname\tid\tfields')
    expect(row).toMatch(/^\+\tcreate\tjurisdiction\tUS\t/)
  })

  it('a YAML error names its line and column and shows the line', async () => {
    const file = join(shared.home.dir, 'broken.yaml')
    writeFileSync(file, 'jurisdictions:\n  - jurisdiction_id: US\n    name: [United States\n')
    const run = await shared.home.run(['apply', '-f', file], {
      env: { RWA_URL: shared.server.url, RWA_API_KEY: 'rwa_live_unused' },
    })
    expect(run.exitCode).toBe(2)
    expect(run.stderr).toMatch(
      /^error: .*broken\.yaml is neither JSON nor YAML: .+ \(line 4, column 1\)\n {2}.*name: \[United States\n/m,
    )
    expect(run.stderr).not.toMatch(/column \d+:\n/)
  })
})
