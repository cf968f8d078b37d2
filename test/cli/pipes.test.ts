import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { execa } from 'execa'
import { describe, expect, it, vi } from 'vitest'
import { RWA_BIN } from '../support/server-process.js'
import { api, newOrg, useServerAndHome } from '../support/cli.js'

/*
 * The CLI in a pipeline (stdout is not a terminal): TSV, -q for xargs, and failures that a CI log
 * reader can act on: the flag named, the hint fitting the case, an rwa command to run.
 */

vi.setConfig({ testTimeout: 120_000 })

const shared = useServerAndHome()

const ESC = '\x1b['
const as = (key: string) => ({ RWA_URL: shared.server.url, RWA_API_KEY: key })

async function register(key: string, id: string, extra: Record<string, unknown> = {}) {
  const body = (await api(shared.server.url, '/console/rwa/jurisdictions', key, {
    method: 'POST',
    body: JSON.stringify({ jurisdiction_id: id, name: `${id} land`, regulatory_body: 'Regulator', ...extra }),
  })) as { jurisdiction_id: string }
  expect(body.jurisdiction_id).toBe(id)
}

describe('piped output', () => {
  it('a list is TSV: a header line, one line per item, no box drawing, no escapes', async () => {
    const key = await newOrg(shared.server.url, shared.server.adminKey, 'pipe-tsv')
    await register(key, 'US', { transfer_requirements: ['kyc', 'aml'] })
    await register(key, 'SG')
    const run = await shared.home.run(['jurisdictions', 'list'], { env: { ...as(key), FORCE_COLOR: '3' } })
    expect(run.exitCode, run.stderr).toBe(0)
    const lines = run.stdout.trimEnd().split('\n')
    expect(lines[0]).toBe('id\tname\tregulator\trequirements\tcredential types')
    expect(lines.slice(1).sort()).toEqual([
      'SG\tSG land\tRegulator\t\tPropertyOwnership, RegulatoryAttestation',
      'US\tUS land\tRegulator\tkyc, aml\tPropertyOwnership, RegulatoryAttestation',
    ])
    expect(run.stdout).not.toMatch(/[│┌└─]/)
    expect(run.stdout + run.stderr).not.toContain(ESC)
    // The footer is a message: on stderr, out of the data.
    expect(run.stderr).toMatch(/2 of 2 jurisdictions/)
  })

  it('a detail is `field<TAB>value` lines under a header line; its tables follow after a blank line', async () => {
    const key = await newOrg(shared.server.url, shared.server.adminKey, 'pipe-detail')
    await register(key, 'US')
    const run = await shared.home.run(['jurisdictions', 'get', 'US'], { env: as(key) })
    expect(run.exitCode, run.stderr).toBe(0)
    const lines = run.stdout.trimEnd().split('\n')
    expect(lines[0]).toBe('field\tvalue')
    expect(lines).toContain('jurisdiction_id\tUS')
    expect(lines).toContain('frameworks\t')
  })

  it('a footer counts in the right number: 1 of 1 jurisdiction, 0 of 0 tokens', async () => {
    const key = await newOrg(shared.server.url, shared.server.adminKey, 'pipe-plural')
    await register(key, 'US')
    const one = await shared.home.run(['jurisdictions', 'list'], { env: as(key) })
    expect(one.stderr).toBe('1 of 1 jurisdiction')
    const none = await shared.home.run(['tokens', 'list'], { env: as(key) })
    expect(none.stderr).toBe('0 of 0 tokens')
  })

  it('-q prints ids one a line, ready for xargs', async () => {
    const key = await newOrg(shared.server.url, shared.server.adminKey, 'pipe-quiet')
    for (const id of ['AA', 'BB', 'CC']) await register(key, id)
    const quiet = await shared.home.run(['jurisdictions', 'list', '-q'], { env: as(key) })
    expect(quiet).toMatchObject({ exitCode: 0, stderr: '' })
    expect(quiet.stdout.split('\n').filter(Boolean).sort()).toEqual(['AA', 'BB', 'CC'])

    const { stdout } = await execa(
      'bash',
      ['-c', `node ${RWA_BIN} jurisdictions list -q | xargs -n1 node ${RWA_BIN} jurisdictions get --json`],
      { env: { ...as(key), XDG_CONFIG_HOME: shared.home.configHome } },
    )
    const names = stdout
      .split(/\n(?=\{)/)
      .map((chunk) => JSON.parse(chunk).name)
      .sort()
    expect(names).toEqual(['AA land', 'BB land', 'CC land'])
    // A create with -q prints the new id alone.
    const created = await shared.home.run(
      ['jurisdictions', 'register', '--id', 'DD', '--name', 'D', '--regulatory-body', 'R', '-q'],
      { env: as(key) },
    )
    expect(created).toMatchObject({ exitCode: 0, stdout: 'DD', stderr: '' })
    // --json and -q together is a usage error.
    expect(
      (await shared.home.run(['jurisdictions', 'list', '-q', '--json'], { env: as(key) })).exitCode,
    ).toBe(2)
  })
})

describe('the xargs examples of the docs', () => {
  it('each runs clean on an empty list: xargs -r runs nothing when there is no id', async () => {
    const key = await newOrg(shared.server.url, shared.server.adminKey, 'pipe-xargs-empty')
    const root = resolve(import.meta.dirname, '../..')
    const examples = ['docs/cli.md', 'README.md'].flatMap((doc) =>
      readFileSync(join(root, doc), 'utf8')
        .split('\n')
        .filter((line) => /^rwa .*\| xargs /.test(line)),
    )
    expect(examples.length).toBeGreaterThanOrEqual(3)
    const cwd = mkdtempSync(join(shared.home.dir, 'xargs-'))
    for (const example of examples) {
      const command = example
        .replace(/#.*$/, '')
        .replaceAll('tok_...', 'tok_01M8420DESXZV8X28W2ZQWTKA9')
        .replaceAll(/(^|\| xargs (?:-\S+ )*)rwa /g, `$1node ${RWA_BIN} `)
      const run = await execa('bash', ['-o', 'pipefail', '-c', command], {
        cwd,
        env: { ...as(key), XDG_CONFIG_HOME: shared.home.configHome },
        reject: false,
      })
      expect(run.exitCode, `${example}\n${run.stderr}`).toBe(0)
      expect(run.stderr, example).toBe('')
    }
  })
})

describe('validation errors name the flag', () => {
  it('--recipient-did bob: exit 2, the flag, the value, an example and the command to read', async () => {
    const key = await newOrg(shared.server.url, shared.server.adminKey, 'pipe-flags')
    const run = await shared.home.run(
      [
        'transfers',
        'request',
        '--token-id',
        'tok_01JD000000000000000000000',
        '--from',
        'US',
        '--to',
        'SG',
        '--recipient-did',
        'bob',
        '--amount',
        '1',
      ],
      { env: as(key) },
    )
    expect(run.exitCode).toBe(2)
    expect(run.stderr).toMatch(/^error: --recipient-did: expected a DID, e\.g\. did:web:\S+ \(got "bob"\)$/m)
    expect(run.stderr).toMatch(/^hint: `rwa transfers request --help` lists its flags and arguments$/m)
    expect(run.stderr).not.toMatch(/Invalid body/)
  })

  it('several refused fields each get a line; a timestamp and a number get an example', async () => {
    const key = await newOrg(shared.server.url, shared.server.adminKey, 'pipe-fields')
    await register(key, 'US')
    const run = await shared.home.run(
      [
        'credentials',
        'issue',
        '--jurisdiction',
        'US',
        '--owner-did',
        'alice',
        '--address',
        'a',
        '--type',
        'office',
        '--value-usd',
        '-5',
        '--title-deed',
        'T',
        '--valid-until',
        'tomorrow',
      ],
      { env: as(key) },
    )
    expect(run.exitCode).toBe(2)
    expect(run.stderr).toMatch(/^error: 3 values were refused:$/m)
    expect(run.stderr).toMatch(/^ {2}--owner-did: expected did:<method>:<organization>:<owner>, e\.g\. /m)
    expect(run.stderr).toMatch(/^ {2}--value-usd: .* \(got -5; e\.g\. --value-usd 2500000\)$/m)
    expect(run.stderr).toMatch(
      /^ {2}--valid-until: expected an ISO 8601 timestamp, e\.g\. 2027-06-30T00:00:00Z \(got "tomorrow"\)$/m,
    )

    const total = await shared.home.run(
      ['tokens', 'create', '--credential-id', 'cred_01JD000000000000000000000', '--total-supply', '-5'],
      { env: as(key) },
    )
    expect(total.exitCode).toBe(2)
    expect(total.stderr).toMatch(/^error: --total-supply: .*\(got -5; e\.g\. --total-supply 1000\)$/m)
  })
})

describe('hints fit the case and name an rwa command', () => {
  it('jurisdictions remove: trust can be revoked; credentials keep a jurisdiction for good', async () => {
    const key = await newOrg(shared.server.url, shared.server.adminKey, 'pipe-remove')
    await register(key, 'US')
    await register(key, 'SG')
    await api(shared.server.url, '/console/rwa/jurisdictions/trust', key, {
      method: 'POST',
      body: JSON.stringify({ from_jurisdiction: 'US', to_jurisdiction: 'SG' }),
    })
    const trustOnly = await shared.home.run(['jurisdictions', 'remove', 'SG', '--yes'], { env: as(key) })
    expect(trustOnly.exitCode).toBe(5)
    expect(trustOnly.stderr).toMatch(/revoke its trust relations first/)
    expect(trustOnly.stderr).toMatch(/^hint: `rwa trust list --jurisdiction SG --status active`/m)

    await api(shared.server.url, '/console/rwa/credentials', key, {
      method: 'POST',
      body: JSON.stringify({
        jurisdiction: 'US',
        owner_did: 'did:web:acme:alice',
        property_data: { address: 'a', type: 'office', value_usd: 1, title_deed: 'T' },
      }),
    })
    const kept = await shared.home.run(['jurisdictions', 'remove', 'US', '--yes'], { env: as(key) })
    expect(kept.exitCode).toBe(5)
    expect(kept.stderr).not.toMatch(/revoke its trust relations first/)
    expect(kept.stderr).toMatch(/keep a jurisdiction for good/)
    expect(kept.stderr).toMatch(/^hint: .*`rwa jurisdictions update US`/m)
  })

  it('a second keys revoke points at `rwa keys list`; plan_required at `rwa keys create --trial`', async () => {
    const created = JSON.parse(
      (
        await shared.home.run(['keys', 'create', '--org', 'pipe-keys', '--name', 'x', '--json'], {
          env: as(shared.server.adminKey),
        })
      ).stdout,
    )
    await shared.home.run(['keys', 'revoke', created.key_id, '--yes'], { env: as(shared.server.adminKey) })
    const again = await shared.home.run(['keys', 'revoke', created.key_id, '--yes'], {
      env: as(shared.server.adminKey),
    })
    expect(again.exitCode).toBe(5)
    expect(again.stderr).toMatch(/^hint: `rwa keys list` shows/m)
    expect(again.stderr).not.toMatch(/`get`/)

    const free = JSON.parse(
      (
        await shared.home.run(['keys', 'create', '--org', 'pipe-free', '--name', 'x', '--json'], {
          env: as(shared.server.adminKey),
        })
      ).stdout,
    )
    const plan = await shared.home.run(['jurisdictions', 'list'], { env: as(free.api_key) })
    expect(plan.exitCode).toBe(3)
    expect(plan.stderr).toMatch(
      /^hint: start its trial: `rwa keys create --org-id pipe-free --start-trial --name NAME`/m,
    )
  })
})

describe('the small things', () => {
  it('version --json is JSON; an empty --api-key-file says so; a URL without scheme says what was meant', async () => {
    expect(JSON.parse((await shared.home.run(['version', '--json'])).stdout)).toEqual({
      version: expect.any(String),
    })

    const empty = join(shared.home.dir, 'empty.key')
    writeFileSync(empty, '')
    const noKey = await shared.home.run(['keys', 'list', '--api-key-file', empty], {
      env: { RWA_URL: shared.server.url },
    })
    expect(noKey.exitCode).toBe(2)
    expect(noKey.stderr).toMatch(/--api-key-file .*empty\.key is empty/)

    const hostPort = shared.server.url.replace('http://', '')
    const noScheme = await shared.home.run(['--url', hostPort, 'pricing'])
    expect(noScheme.exitCode).toBe(2)
    expect(noScheme.stderr).toContain(`hint: did you mean http://${hostPort}?`)
    const withPath = await shared.home.run(['--url', `${shared.server.url}/console/billing`, 'pricing'])
    expect(withPath.exitCode).toBe(2)
    expect(withPath.stderr).toContain(`hint: did you mean ${shared.server.url}?`)
  })

  it('usage says how many days it leaves out; config set --api-key-file says it copied the key', async () => {
    const key = await newOrg(shared.server.url, shared.server.adminKey, 'pipe-usage')
    const usage = await shared.home.run(['usage', '--days', '7'], { env: as(key) })
    expect(usage.exitCode, usage.stderr).toBe(0)
    expect(usage.stderr).toMatch(
      /1 of 7 days had traffic; the 6 without any are not shown \(--json lists every day\)/,
    )

    const keyFile = join(shared.home.dir, 'copied.key')
    writeFileSync(keyFile, `${key}\n`, { mode: 0o600 })
    const saved = await shared.home.run([
      'config',
      'set',
      'copied',
      '--url',
      shared.server.url,
      '--api-key-file',
      keyFile,
    ])
    expect(saved.exitCode, saved.stderr).toBe(0)
    expect(saved.stderr).toMatch(/the API key was copied from .*copied\.key into the profile/)
    expect(saved.stdout + saved.stderr).not.toContain(key)
  })
})
