import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it, vi } from 'vitest'
import { newOrgCli, tokenThroughCli, useServerAndHome } from '../support/cli.js'

/*
 * `rwa identities` and `rwa tokens holders` end to end against a real server: create, list, get,
 * update, add and remove DIDs, a refusal's hint, a CSV import with a refused row named by its line, and
 * a token's holders grouped by identity.
 */

vi.setConfig({ testTimeout: 120_000 })
const shared = useServerAndHome()

describe('rwa identities', () => {
  it('creates, lists, gets, updates, adds and removes DIDs', async () => {
    const rwa = await newOrgCli(shared, 'identities-cli')
    const created = await rwa.json([
      'identities',
      'create',
      '--did',
      'did:web:acme:alice',
      '--did',
      'did:web:acme:alice-cold',
      '--country',
      'US',
      '--category',
      'accredited',
    ])
    expect(created).toMatchObject({
      identity_id: expect.stringMatching(/^idn_/),
      dids: ['did:web:acme:alice', 'did:web:acme:alice-cold'],
      country: 'US',
      category: 'accredited',
    })
    const id = created.identity_id
    const chosen = await rwa.json([
      'identities',
      'create',
      '--identity-id',
      'bob',
      '--did',
      'did:web:acme:bob',
      '--country',
      'SG',
    ])
    expect(chosen).toMatchObject({ identity_id: 'bob', category: null })

    const list = await rwa.json(['identities', 'list', '--country', 'US'])
    expect(list.identities.map((i: any) => i.identity_id)).toEqual([id])
    expect((await rwa.json(['identities', 'get', id])).dids).toHaveLength(2)
    expect(await rwa.json(['identities', 'update', id, '--category', 'qualified'])).toMatchObject({
      country: 'US',
      category: 'qualified',
    })
    expect((await rwa.json(['identities', 'add-did', id, '--did', 'did:web:acme:alice-new'])).dids).toEqual([
      'did:web:acme:alice',
      'did:web:acme:alice-cold',
      'did:web:acme:alice-new',
    ])
    expect(
      (await rwa.json(['identities', 'remove-did', id, '--did', 'did:web:acme:alice-cold'])).dids,
    ).toEqual(['did:web:acme:alice', 'did:web:acme:alice-new'])
    expect(
      (
        await rwa.json([
          'identities',
          'dids',
          'bob',
          '--add',
          'did:web:acme:alice-cold',
          '--remove',
          'did:web:acme:bob',
        ])
      ).dids,
    ).toEqual(['did:web:acme:alice-cold'])

    // A DID of another identity: the refusal and how to free it.
    const taken = await rwa.run(['identities', 'add-did', id, '--did', 'did:web:acme:alice-cold'])
    expect(taken.exitCode).not.toBe(0)
    expect(taken.stderr).toContain('did:web:acme:alice-cold is in identity bob already')
    expect(taken.stderr).toContain('rwa identities remove-did bob --did did:web:acme:alice-cold')
    // A country of the wrong form is refused by name before anything is sent.
    const bad = await rwa.run(['identities', 'create', '--did', 'did:web:acme:x', '--country', 'usa'])
    expect(bad.exitCode).toBe(2)
    expect(bad.stderr).toContain('country')
    const human = await rwa.run(['identities', 'get', id])
    expect(human.exitCode).toBe(0)
    expect(human.stdout).toContain('qualified')
  })

  it('refuses a country code that is not assigned, naming the flag, exit 2; XK is taken', async () => {
    const rwa = await newOrgCli(shared, 'identities-country')
    // The message names the code, so no `(got "XX")` repeats it.
    const notOne = (code: string) =>
      `expected an assigned ISO 3166-1 alpha-2 country code, e.g. US: ${code} is not one\n`
    const created = await rwa.run(['identities', 'create', '--did', 'did:web:acme:x', '--country', 'XX'])
    expect(created.exitCode).toBe(2)
    expect(created.stderr).toContain(`--country: ${notOne('XX')}`)
    expect(created.stderr).not.toContain('(got')
    expect(created.stderr).toContain('`rwa identities create --help` lists its flags and arguments')
    const listed = await rwa.run(['identities', 'list', '--country', 'ZZ'])
    expect(listed.exitCode).toBe(2)
    expect(listed.stderr).toContain(`--country: ${notOne('ZZ')}`)
    const kosovo = await rwa.json(['identities', 'create', '--did', 'did:web:acme:k', '--country', 'XK'])
    expect(kosovo.country).toBe('XK')
    const updated = await rwa.run(['identities', 'update', kosovo.identity_id, '--country', 'UK'])
    expect(updated.exitCode).toBe(2)
    expect(updated.stderr).toContain(`--country: ${notOne('UK')}`)
    expect((await rwa.json(['identities', 'get', kosovo.identity_id])).country).toBe('XK')
  })

  it('imports a CSV file: DIDs separated by ";", a refused row reported by its line, the others kept', async () => {
    const rwa = await newOrgCli(shared, 'identities-import')
    const file = join(shared.home.dir, 'investors.csv')
    writeFileSync(
      file,
      [
        'identity_id,dids,country,category',
        'inv-1,did:web:acme:i1;did:web:acme:i1-cold,US,accredited',
        ',did:web:acme:i2,DE,',
        // Line 4: its DID is inv-1's already.
        'inv-3,did:web:acme:i1-cold,FR,retail',
        'inv-4,did:web:acme:i4 did:web:acme:i4b,SG,institutional',
        '',
      ].join('\n'),
    )
    const run = await rwa.run(['identities', 'import', file, '--json'])
    expect(run.exitCode, run.stderr).toBe(6)
    const out = JSON.parse(run.stdout)
    expect(out).toMatchObject({ rows: 4, imported: 3, failed: 1 })
    expect(out.results[2]).toMatchObject({ line: 4, status: 409, reason: 'did_in_use' })
    expect(out.results[0]).toMatchObject({ line: 2, status: 201, id: 'inv-1' })
    const list = await rwa.json(['identities', 'list'])
    expect(list.total).toBe(3)
    expect((await rwa.json(['identities', 'get', 'inv-4'])).dids).toEqual([
      'did:web:acme:i4',
      'did:web:acme:i4b',
    ])

    // A row its schema refuses (a lower-case country) is named by its line before it is sent.
    const invalid = join(shared.home.dir, 'invalid.csv')
    writeFileSync(invalid, 'dids,country\ndid:web:acme:j1,US\ndid:web:acme:j2,us\n')
    const refused = await rwa.run(['identities', 'import', invalid])
    expect(refused.exitCode).toBe(2)
    expect(refused.stderr).toContain(`${invalid} line 3: country:`)
  })

  it('rwa tokens holders groups a token’s holders by identity', async () => {
    const rwa = await newOrgCli(shared, 'holders-cli')
    const { tokenId } = await tokenThroughCli(rwa, {
      owner: 'did:web:acme:owner',
      holders: ['did:web:acme:h1'],
      titleDeed: 'HOLD-1',
    })
    await rwa.json([
      'identities',
      'create',
      '--identity-id',
      'owner',
      '--did',
      'did:web:acme:owner',
      '--country',
      'US',
    ])
    const holders = await rwa.json(['tokens', 'holders', tokenId])
    expect(holders).toEqual({
      holders: [
        {
          identity_id: 'owner',
          country: 'US',
          category: null,
          total: 1000,
          dids: [{ holder_did: 'did:web:acme:owner', amount: 1000 }],
        },
      ],
      total: 1,
      next_cursor: null,
    })
    const table = await rwa.run(['tokens', 'holders', tokenId])
    expect(table.exitCode).toBe(0)
    expect(table.stdout).toContain('did:web:acme:owner=1000')
  })
})
