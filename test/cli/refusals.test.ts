import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { api, cliHome, newOrg, useServerAndHome } from '../support/cli.js'
import { type RewordingProxy, rewordingProxy } from '../support/rewording-proxy.js'

/*
 * Refusals from a real server, through the real CLI, twice: straight, and through a proxy that
 * rewords every problem's `detail`. The CLI reads code, reason and context, never the detail, so the
 * only line that may change is the `error:` sentence; the hint, the exit code and the flags named
 * stay. And a hint adds to its error: it never repeats it.
 */

vi.setConfig({ testTimeout: 120_000 })

const shared = useServerAndHome()
let proxy: RewordingProxy
let key: string
let freeKey: string
let tokenId: string
let credentialId: string
let revokedKeyId: string

const reworded = (problem: Record<string, unknown>) => `Reworded by the proxy (${String(problem.reason)})`

beforeAll(async () => {
  proxy = await rewordingProxy(shared.server.url, reworded)
  const url = shared.server.url
  key = await newOrg(url, shared.server.adminKey, 'refusals')
  const post = (path: string, body: unknown, as = key) =>
    api(url, path, as, { method: 'POST', body: JSON.stringify(body) }) as Promise<Record<string, any>>
  await post('/console/rwa/jurisdictions', {
    jurisdiction_id: 'US',
    name: 'United States',
    regulatory_body: 'SEC',
    transfer_requirements: ['kyc'],
  })
  await post('/console/rwa/jurisdictions', {
    jurisdiction_id: 'SG',
    name: 'Singapore',
    regulatory_body: 'MAS',
  })
  await post('/console/rwa/jurisdictions', {
    jurisdiction_id: 'XX',
    name: 'Attestations only',
    regulatory_body: 'R',
    credential_types: ['RegulatoryAttestation'],
  })
  await post('/console/rwa/jurisdictions/trust', { from_jurisdiction: 'US', to_jurisdiction: 'SG' })
  credentialId = (
    await post('/console/rwa/credentials', {
      jurisdiction: 'US',
      owner_did: 'did:web:refusals:alice',
      property_data: { address: '1 Main St', type: 'office', value_usd: 1000, title_deed: 'T-1' },
    })
  ).credential_id
  tokenId = (await post('/console/rwa/tokenize', { credential_id: credentialId, total_supply: 10 })).token_id
  const spare = await post('/console/billing/keys', { org_id: 'refusals', name: 'spare' })
  revokedKeyId = spare.key_id
  await api(url, `/console/billing/keys/${revokedKeyId}`, key, { method: 'DELETE' })
  freeKey = (
    await post('/console/billing/keys', { org_id: 'refusals-free', name: 'free' }, shared.server.adminKey)
  ).api_key
})
afterAll(async () => {
  await proxy?.close()
})

/** A token id of the right form that names no token. */
const otherToken = () => `${tokenId.slice(0, -1)}${tokenId.endsWith('0') ? '1' : '0'}`

/** Sequences of 4 words (an id or a DID is one), to find a hint that says again what its error said. */
function shingles(text: string): Set<string> {
  const words = text.toLowerCase().match(/[a-z0-9_:./-]+/g) ?? []
  return new Set(words.slice(3).map((_, i) => words.slice(i, i + 4).join(' ')))
}

interface Case {
  reason: string
  args: () => string[]
  as?: () => string
  /** The CLI names refused fields from `errors` rather than printing the detail. */
  fields?: boolean
  /** A path under the server's URL, for a --url that is not the API's base. */
  urlSuffix?: string
}

const CASES: Case[] = [
  {
    reason: 'jurisdiction_exists',
    args: () => ['jurisdictions', 'register', '--id', 'US', '--name', 'Again', '--regulatory-body', 'SEC'],
  },
  { reason: 'jurisdiction_in_use (trust)', args: () => ['jurisdictions', 'remove', 'SG', '--yes'] },
  { reason: 'jurisdiction_in_use (records)', args: () => ['jurisdictions', 'remove', 'US', '--yes'] },
  { reason: 'trust_exists', args: () => ['trust', 'establish', '--from', 'US', '--to', 'SG'] },
  { reason: 'trust_not_found', args: () => ['trust', 'revoke', '--from', 'SG', '--to', 'US', '--yes'] },
  {
    reason: 'credential_type_not_accepted',
    args: () => [
      'credentials',
      'issue',
      '--jurisdiction',
      'XX',
      '--owner-did',
      'did:web:refusals:alice',
      '--address',
      'a',
      '--type',
      'office',
      '--value-usd',
      '5',
      '--title-deed',
      'T-2',
    ],
  },
  { reason: 'token_not_found', args: () => ['tokens', 'get', otherToken()] },
  {
    reason: 'credential_already_tokenized',
    args: () => ['tokens', 'create', '--credential-id', credentialId, '--total-supply', '5'],
  },
  {
    reason: 'insufficient_holding',
    args: () => [
      'transfers',
      'request',
      '--token-id',
      tokenId,
      '--from',
      'US',
      '--to',
      'SG',
      '--recipient-did',
      'did:web:refusals:bob',
      '--amount',
      '999',
    ],
  },
  {
    reason: 'holding_not_found',
    args: () => [
      'tokens',
      'freeze',
      tokenId,
      '--holder-did',
      'did:web:refusals:nobody',
      '--jurisdiction',
      'US',
      '--amount',
      '1',
    ],
  },
  { reason: 'key_already_revoked', args: () => ['keys', 'revoke', revokedKeyId, '--yes'] },
  { reason: 'plan_required', args: () => ['jurisdictions', 'list'], as: () => freeKey },
  { reason: 'route_not_found', args: () => ['jurisdictions', 'list'], urlSuffix: '/not-the-api' },
  {
    reason: 'invalid_field (body)',
    fields: true,
    args: () => [
      'transfers',
      'request',
      '--token-id',
      tokenId,
      '--from',
      'US',
      '--to',
      'SG',
      '--recipient-did',
      'bob',
      '--amount',
      '1',
    ],
  },
  { reason: 'invalid_field (query)', fields: true, args: () => ['usage', '--days', '9999'] },
  {
    reason: 'unknown_requirement',
    fields: true,
    args: () => [
      'attestations',
      'submit',
      '--jurisdiction',
      'US',
      '--subject-did',
      'did:web:refusals:bob',
      '--type',
      'kyb',
      '--attester',
      'A',
    ],
  },
]

describe('a refusal through the CLI', () => {
  it.each(CASES)('$reason: reworded on the server, only its sentence changes', async (c) => {
    const run = (base: string) =>
      shared.home.run(c.args(), {
        env: { RWA_URL: `${base}${c.urlSuffix ?? ''}`, RWA_API_KEY: c.as?.() ?? key },
      })
    const straight = await run(shared.server.url)
    const throughProxy = await run(proxy.url)

    // A refusal: a code of its own (not 0, not 1 "unexpected"), an error and a hint.
    expect(straight.exitCode, straight.stderr).toBeGreaterThan(1)
    const error = straight.stderr.split('\n').find((l) => l.startsWith('error: '))!
    const hint = straight.stderr.split('\n').find((l) => l.startsWith('hint: '))
    expect(hint, straight.stderr).toBeDefined()

    // Reworded: the same exit code, and every line but the sentence the same.
    expect(throughProxy.exitCode).toBe(straight.exitCode)
    const others = (stderr: string) => stderr.split('\n').filter((l) => !l.startsWith('error: '))
    expect(others(throughProxy.stderr)).toEqual(others(straight.stderr))
    const rewordedError = throughProxy.stderr.split('\n').find((l) => l.startsWith('error: '))!
    if (c.fields) expect(rewordedError).toBe(error)
    else expect(rewordedError).toMatch(/^error: Reworded by the proxy \([a-z_]+\)$/)

    // The hint adds to the error: no four words of the error again in it.
    const repeated = [...shingles(hint!)].filter((s) => shingles(error).has(s))
    expect(repeated, `${error}\n${hint}`).toEqual([])
  })
})

describe('a whole number beyond what JSON holds exactly', () => {
  it('is refused before anything is sent: one message, the value as typed, the largest allowed', async () => {
    const home = cliHome()
    try {
      // Nothing listens on port 9: a request would fail with exit 7, not 2.
      const run = await home.run(
        [
          'transfers',
          'request',
          '--token-id',
          'tok_x',
          '--from',
          'US',
          '--to',
          'SG',
          '--recipient-did',
          'did:web:a:b',
          '--amount',
          '99999999999999999999999',
        ],
        { env: { RWA_URL: 'http://127.0.0.1:9', RWA_API_KEY: `rwa_live_${'a'.repeat(43)}` } },
      )
      expect(run.exitCode).toBe(2)
      expect(run.stderr).toBe('error: --amount must be at most 9007199254740991, got 99999999999999999999999')
    } finally {
      home.cleanup()
    }
  })
})
