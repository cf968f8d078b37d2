import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { checkServerUrl, readApiKeyFile } from '../../src/cli/context.js'
import { EXIT, ExitError } from '../../src/cli/exit-error.js'
import {
  CommandFailure,
  describeFailure,
  EXIT_OF_CODE,
  EXIT_OF_REASON,
  type FailureContext,
} from '../../src/cli/failure.js'
import { flagsOf } from '../../src/cli/flags/flag.js'
import { buildProgram } from '../../src/cli/main.js'
import { ApiProblemError } from '../../src/client/errors.js'
import type { FieldError } from '../../src/contract/errors.js'
import { ERROR_STATUS, problemType, REASONS, type Reason } from '../../src/contract/errors.js'

/*
 * What a CLI user reads when the API refuses. The CLI reads a refusal's code, reason and context, never
 * its detail: the detail is the message, and rewording it changes nothing else.
 */

const problem = (
  reason: Reason,
  options: {
    detail?: string
    context?: Record<string, unknown>
    errors?: FieldError[]
    retryAfter?: number
    requestId?: string
  } = {},
) => {
  const code = REASONS[reason].code
  return new ApiProblemError(
    {
      type: problemType(code),
      title: code,
      status: ERROR_STATUS[code],
      detail: options.detail ?? `the ${reason} detail`,
      code,
      reason,
      context: options.context ?? {},
      ...(options.errors ? { errors: options.errors } : {}),
    },
    options.retryAfter,
    options.requestId,
  )
}

/** The flag table of `rwa <path>`, as the program declares it. */
const PROGRAM = buildProgram()
function tableOf(path: string) {
  let command = PROGRAM
  for (const name of path.split(' ')) command = command.commands.find((c) => c.name() === name)!
  return flagsOf(command)
}
const KEYS = { create: tableOf('keys create') }
const USAGE = tableOf('usage')
const CREDENTIALS = { issue: tableOf('credentials issue') }
const TOKENS = { freeze: tableOf('tokens freeze'), rulesSet: tableOf('tokens rules set') }
const TRANSFERS = { request: tableOf('transfers request') }

const context = (over: Partial<FailureContext> = {}): FailureContext => ({
  command: '',
  fields: [],
  args: [],
  argumentNames: [],
  ...over,
})

const failing = (error: unknown, ctx: Partial<FailureContext> = {}) =>
  describeFailure(new CommandFailure(error, context(ctx)))

/** A context with every id and value a refusal's hint may read, so each hint has what it needs. */
const RICH_CONTEXT = {
  org_id: 'acme',
  key_id: 'key_1',
  jurisdiction_id: 'US',
  from_jurisdiction: 'US',
  to_jurisdiction: 'SG',
  trust_id: 'trust_1',
  credential_id: 'cred_1',
  token_id: 'tok_1',
  holder_did: 'did:web:acme:bob',
  did: 'did:web:acme:bob',
  jurisdictions: ['SG'],
  credential_type: 'PropertyOwnership',
  accepted: ['RegulatoryAttestation'],
  known: ['kyc', 'aml'],
  credentials: 1,
  trust: 1,
  window: 'minute',
  limit: 60,
  retry_after_seconds: 42,
  where: 'body',
}

describe('a refused field is named by the flag of the command table that gave it', () => {
  const invalid = (errors: FieldError[], where = 'body') =>
    problem('invalid_field', { detail: 'Invalid body: ...', errors, context: { where } })

  it('--recipient-did, with the value as typed and an example; the hint names the command', () => {
    const failure = failing(
      invalid([{ path: 'recipient_did', message: 'expected a DID, e.g. did:web:acme:alice' }]),
      {
        command: 'transfers request',
        fields: TRANSFERS.request,
        flagValues: { '--recipient-did': 'bob', '--amount': '1' },
        request: {
          body: { recipient_did: 'bob', amount: 1 },
          fromFlags: new Set(['recipient_did', 'amount']),
        },
      },
    )
    expect(failure.code).toBe(2)
    expect(failure.message).toBe('--recipient-did: expected a DID, e.g. did:web:acme:alice (got "bob")')
    expect(failure.hint).toBe('`rwa transfers request --help` lists its flags and arguments')
  })

  it('an element of a list (roles.1) goes by the flag of its list (--roles), with the element given', () => {
    const failure = failing(invalid([{ path: 'roles.1', message: 'expected one of "owner"|"issuer"' }]), {
      command: 'keys create',
      fields: KEYS.create,
      flagValues: { '--roles': ['issuer', 'wizard'], '--name': 'ci' },
      request: { body: { name: 'ci', roles: ['issuer', 'wizard'] }, fromFlags: new Set(['name', 'roles']) },
    })
    expect(failure.code).toBe(2)
    expect(failure.message).toBe(
      '--roles: expected one of "owner"|"issuer" (got "wizard"; e.g. --roles transfers)',
    )
  })

  it('a key of an object a flag gives (max_holders_per_country.QQ) goes by that flag, with its value as typed', () => {
    const message = 'expected an assigned ISO 3166-1 alpha-2 country code, e.g. US: QQ is not one'
    const context = {
      command: 'tokens rules set',
      fields: TOKENS.rulesSet,
      flagValues: { '--max-holders-per-country': 'US=5,QQ=5' },
      request: {
        body: { max_holders_per_country: { US: 5, QQ: 5 } },
        fromFlags: new Set(['max_holders_per_country']),
        file: 'rules.json',
      },
    }
    const failure = failing(invalid([{ path: 'max_holders_per_country.QQ', message }]), context)
    expect(failure.code).toBe(2)
    expect(failure.message).toBe(`--max-holders-per-country: ${message} (got "US=5,QQ=5")`)
    // The same key from --file is named by its path in the file.
    const fromFile = failing(invalid([{ path: 'max_holders_per_country.QQ', message }]), {
      ...context,
      flagValues: {},
      request: { ...context.request, fromFlags: new Set<string>() },
    })
    expect(fromFile.message).toBe(`max_holders_per_country.QQ (from --file rules.json): ${message} (got 5)`)
  })

  it('a flag that differs from its field (--from), and an example where the message has none', () => {
    const failure = failing(
      invalid([
        { path: 'from_jurisdiction', message: 'expected a short code' },
        { path: 'amount', message: 'Too small: expected number to be >0' },
      ]),
      {
        command: 'transfers request',
        fields: TRANSFERS.request,
        flagValues: { '--from': 'u s', '--amount': '-1' },
        request: {
          body: { from_jurisdiction: 'u s', amount: -1 },
          fromFlags: new Set(['from_jurisdiction', 'amount']),
        },
      },
    )
    expect(failure.message).toBe(
      '2 values were refused:\n  --from: expected a short code (got "u s"; e.g. --from US)\n  --amount: Too small: expected number to be >0 (got -1; e.g. --amount 250)',
    )
  })

  it('a nested field (--value-usd), a field from --file, a query flag, a path id by its argument', () => {
    const nested = failing(invalid([{ path: 'property_data.value_usd', message: 'Too small' }]), {
      command: 'credentials issue',
      fields: CREDENTIALS.issue,
      flagValues: { '--value-usd': '-5' },
      request: {
        body: { property_data: { value_usd: -5 } },
        fromFlags: new Set(['property_data.value_usd']),
      },
    })
    expect(nested.message).toBe('--value-usd: Too small (got -5; e.g. --value-usd 2500000)')

    const fromFile = failing(invalid([{ path: 'owner_did', message: 'expected a DID' }]), {
      command: 'credentials issue',
      fields: CREDENTIALS.issue,
      request: { body: { owner_did: 'alice' }, fromFlags: new Set(), file: 'cred.json' },
    })
    expect(fromFile.message).toBe('owner_did (from --file cred.json): expected a DID (got "alice")')

    const query = failing(invalid([{ path: 'days', message: 'Too big' }], 'query'), {
      command: 'usage',
      fields: USAGE,
      flagValues: { '--days': '9999' },
    })
    expect(query.message).toBe('--days: Too big (got 9999; e.g. --days 30)')

    const path = failing(invalid([{ path: 'id', message: 'expected an id starting with "cred_"' }], 'path'), {
      command: 'credentials get',
      args: ['xyz'],
      argumentNames: ['credential_id'],
    })
    expect(path.message).toBe('<credential_id>: expected an id starting with "cred_" (got "xyz")')
  })

  it('a refusal of another code that names a field names its flag too (valid_until_not_future)', () => {
    const failure = failing(
      problem('valid_until_not_future', {
        errors: [{ path: 'valid_until', message: 'must be in the future' }],
        context: { valid_until: '2020-01-01T00:00:00Z' },
      }),
      {
        command: 'credentials issue',
        fields: CREDENTIALS.issue,
        flagValues: { '--valid-until': '2020-01-01T00:00:00Z' },
      },
    )
    expect(failure.code).toBe(2)
    expect(failure.message).toBe(
      '--valid-until: must be in the future (got "2020-01-01T00:00:00Z"; e.g. --valid-until 2027-06-30T00:00:00Z)',
    )
  })
})

describe('a value refused because something else has it', () => {
  it('names the flag and the value, with no example of its form, and says how to free it (title_deed_in_use)', () => {
    const failure = failing(
      problem('title_deed_in_use', {
        errors: [{ path: 'property_data.title_deed', message: 'in use by cred_1' }],
        context: { credential_id: 'cred_1', jurisdiction: 'US', title_deed: 'td-1' },
      }),
      {
        command: 'credentials issue',
        fields: CREDENTIALS.issue,
        flagValues: { '--title-deed': 'td-1' },
        request: {
          body: { property_data: { title_deed: 'td-1' } },
          fromFlags: new Set(['property_data.title_deed']),
        },
      },
    )
    expect(failure.code).toBe(EXIT.conflict)
    expect(failure.message).toBe('--title-deed: in use by cred_1 (got "td-1")')
    expect(failure.hint).toBe(
      '`rwa credentials get cred_1` shows it; if this one replaces it, `rwa credentials revoke cred_1 --reason ...` first',
    )
  })
})

describe('hints are keyed by reason and filled from the context', () => {
  const cases: Array<[string, ApiProblemError, Partial<FailureContext>, string | RegExp]> = [
    [
      'an already tokenized credential names its token',
      problem('credential_already_tokenized', { context: { credential_id: 'cred_1', token_id: 'tok_9' } }),
      { command: 'tokens create' },
      '`rwa tokens get tok_9` shows it',
    ],
    [
      'a jurisdiction held only by trust: how to list and revoke the trust',
      problem('jurisdiction_in_use', {
        context: { jurisdiction_id: 'SG', credentials: 0, attestations: 0, tokens: 0, holdings: 0, trust: 1 },
      }),
      { command: 'jurisdictions remove', args: ['SG'] },
      '`rwa trust list --jurisdiction SG --status active` lists the trust; `rwa trust revoke --from A --to B --yes` revokes each',
    ],
    [
      'a jurisdiction its credentials keep: update it instead (the message says why it stays)',
      problem('jurisdiction_in_use', {
        context: { jurisdiction_id: 'US', credentials: 1, attestations: 0, tokens: 0, holdings: 0, trust: 1 },
      }),
      { command: 'jurisdictions remove', args: ['US'] },
      '`rwa jurisdictions update US` changes its requirements instead',
    ],
    [
      'no active trust: the trust in force from that jurisdiction',
      problem('trust_not_found', { context: { from_jurisdiction: 'US', to_jurisdiction: 'SG' } }),
      { command: 'trust revoke' },
      '`rwa trust list --jurisdiction US --status active` lists the trust in force',
    ],
    [
      'the last admin key: create another first',
      problem('last_admin_key', { context: { key_id: 'key_1' } }),
      { command: 'keys revoke', args: ['key_1'] },
      'create another admin key first: `rwa keys create --org-id admin --name NAME`',
    ],
    [
      'the last admin key rerolled with no overlap: reroll it with one',
      problem('last_admin_key', { context: { key_id: 'key_1' } }),
      { command: 'keys reroll', args: ['key_1'] },
      'reroll it with an overlap of at least 5m, so that it still works should the new key be lost: `rwa keys reroll key_1 --overlap 1h`; or create another admin key first: `rwa keys create --org-id admin --name NAME`',
    ],
    [
      'a cancelled approval: its requester is revoked; get shows it',
      problem('approval_requester_revoked', { context: { approval_id: 'apr_1', requested_by: 'key_1' } }),
      { command: 'approvals approve', args: ['apr_1'] },
      'the key that asked for it is revoked or expired, so it never runs: `rwa approvals get apr_1` shows it; a key in force runs the command again to ask anew',
    ],
    [
      'a second revoke of a key points at `rwa keys list`, never at a `keys get` that does not exist',
      problem('key_already_revoked', { context: { key_id: 'key_1' } }),
      { command: 'keys revoke', args: ['key_1'] },
      /^`rwa keys list` shows each key/,
    ],
    [
      'plan required without a trial yet: start it, for that organization',
      problem('plan_required', { context: { org_id: 'acme', trial_ends_at: null } }),
      { command: 'jurisdictions list' },
      'start its trial: `rwa keys create --org-id acme --start-trial --name NAME`; or subscribe: `rwa pricing` lists the tiers',
    ],
    [
      'plan required after a trial: when it ended, and the tiers',
      problem('plan_required', { context: { org_id: 'acme', trial_ends_at: '2026-01-15T00:00:00.000Z' } }),
      { command: 'jurisdictions list' },
      'its trial ended at 2026-01-15T00:00:00.000Z: `rwa pricing` lists the tiers; `rwa subscription get acme` shows its subscription',
    ],
    [
      'a record of each kind not found: the list of that kind, whatever the command',
      problem('token_not_found', { context: { token_id: 'tok_x' } }),
      { command: 'transfers request' },
      '`rwa tokens list` shows what exists',
    ],
    [
      'a proof not found: where proof ids are listed',
      problem('proof_not_found', { context: { proof_id: 'prf_x' } }),
      { command: 'proofs get' },
      "`rwa transfers list` shows each transfer's proof_id",
    ],
    [
      'no route: the --url',
      problem('route_not_found', { context: { method: 'GET', path: '/console/console/x' } }),
      { command: 'pricing' },
      /^is --url \(or RWA_URL\) the base URL of an rwa server/,
    ],
    [
      "more units than held: the holder's holdings of that token",
      problem('insufficient_holding', {
        context: { token_id: 'tok_1', holder_did: 'did:web:acme:alice', jurisdiction: 'US', held: 5 },
      }),
      { command: 'transfers request' },
      '`rwa tokens holdings tok_1 --holder-did did:web:acme:alice` shows how much it holds where',
    ],
    [
      'unfreezing a DID that is not frozen: the DIDs that are, which may hold nothing',
      problem('holder_not_frozen', { context: { token_id: 'tok_1', holder_did: 'did:web:lion:bob' } }),
      { command: 'tokens unfreeze' },
      '`rwa tokens frozen-holders tok_1` lists every DID frozen as a whole',
    ],
    [
      'freezing more units than held: the token is the argument when the context has none',
      problem('frozen_units_exceed_holding', { context: { amount: 5, frozen_amount: 5, requested: 1 } }),
      { command: 'tokens freeze', args: ['tok_7'], argumentNames: ['token_id'], fields: TOKENS.freeze },
      "`rwa tokens holdings tok_7` shows each holding's frozen units",
    ],
    [
      'a credential type not accepted: the update that adds it to what is accepted',
      problem('credential_type_not_accepted', {
        context: {
          jurisdiction_id: 'XX',
          credential_type: 'PropertyOwnership',
          accepted: ['RegulatoryAttestation'],
        },
      }),
      { command: 'credentials issue' },
      '`rwa jurisdictions update XX --credential-types RegulatoryAttestation,PropertyOwnership` adds it',
    ],
    [
      'an unknown requirement: those known here, from the context',
      problem('unknown_requirement', { context: { type: 'kyb', known: ['kyc', 'aml'] } }),
      { command: 'attestations submit' },
      /^requirements known here: kyc, aml; /,
    ],
    [
      'a recipient without kyc: the attestation that would give it',
      problem('recipient_not_kyc', { context: { did: 'did:web:acme:carol', jurisdictions: ['SG'] } }),
      { command: 'tokens force-transfer' },
      '`rwa attestations submit --jurisdiction SG --subject-did did:web:acme:carol --type kyc --attester NAME` records one',
    ],
    [
      "a key of another organization: drop --org-id, or that organization's key",
      problem('other_organization', { context: { org_id: 'globex', key_org_id: 'acme' } }),
      { command: 'keys list' },
      'drop --org-id, or use a key of globex (or the admin key)',
    ],
    [
      'a value with spaces in a suggested command is quoted for the shell',
      problem('organization_not_found', { context: { org_id: 'acme corp' } }),
      { command: 'subscription set' },
      "`rwa keys create --org-id 'acme corp' --name NAME` (admin key) makes its first key, which creates it",
    ],
    [
      'a did:key of another key type: an Ed25519 did:key, or a did:web listing an Ed25519 key',
      problem('issuer_unresolvable', {
        context: {
          did: 'did:key:zDnaerDaTF5BXEavCrfRZEk316dpbLsfPDZ3WJ5hRTPFU2169',
          reason:
            'did:key:zDnaerDaTF5BXEavCrfRZEk316dpbLsfPDZ3WJ5hRTPFU2169 is not an Ed25519 key (multicodec 0xed01)',
        },
      }),
      { command: 'issuers add' },
      'use an Ed25519 did:key (did:key:z6Mk…), or register the provider by a did:web whose document lists an Ed25519 key (a JsonWebKey with an OKP Ed25519 publicKeyJwk, or a Multikey z6Mk…)',
    ],
    [
      'a did:web that cannot be fetched: https from a public address, or --allow-http-issuers on this machine',
      problem('issuer_unresolvable', {
        context: { did: 'did:web:10.1.2.3', reason: '10.1.2.3 is a private address' },
      }),
      { command: 'issuers add' },
      /^check the DID: a did:web's document is fetched over https from a public address .*--allow-http-issuers/,
    ],
  ]
  it.each(cases)('%s', (_, refusal, ctx, hint) => {
    const failure = failing(refusal, ctx)
    if (typeof hint === 'string') expect(failure.hint).toBe(hint)
    else expect(failure.hint).toMatch(hint)
  })

  it('a 429 says what the message does not: --wait, and how long --wait-max allows', () => {
    const refusal = problem('rate_limited', {
      context: { org_id: 'acme', window: 'minute', limit: 60, retry_after_seconds: 42 },
      retryAfter: 42,
    })
    const plain = failing(refusal, { command: 'keys list' })
    expect(plain.code).toBe(5)
    expect(plain.hint).toMatch(/^add --wait /)
    const waited = failing(refusal, { command: 'keys list', waitMaxSeconds: 5 })
    expect(waited.hint).toMatch(/42 s away, more than --wait-max 5/)
    // Without the header, the context's retry_after_seconds serves.
    const fromContext = problem('rate_limited', { context: { retry_after_seconds: 17 } })
    expect(failing(fromContext, { command: 'keys list', waitMaxSeconds: 5 }).hint).toMatch(/17 s away/)
  })

  it('503 never says "report it"; 500 does, with the request id', () => {
    for (const reason of [
      'starting',
      'not_ready',
      'database_unavailable',
      'payment_provider_unreachable',
    ] as const) {
      const failure = failing(problem(reason), { command: 'keys list' })
      expect(failure.code, reason).toBe(7)
      expect(failure.hint ?? '', reason).not.toMatch(/report/)
    }
    expect(failing(problem('internal')).hint).toMatch(/report it with the request id/)
  })
})

describe('a refusal reworded on the server changes nothing but the sentence', () => {
  const reasons = Object.keys(REASONS) as Reason[]

  it.each(reasons)('%s: the same hint, exit code and verbose context under any detail', (reason) => {
    const ctx: Partial<FailureContext> = {
      command: 'transfers request',
      fields: TRANSFERS.request,
      args: [],
      flagValues: { '--amount': '5' },
      request: { body: { amount: 5 }, fromFlags: new Set(['amount']) },
      waitMaxSeconds: 1,
    }
    const first = failing(problem(reason, { detail: 'First wording of it.', context: RICH_CONTEXT }), ctx)
    const second = failing(
      problem(reason, {
        detail: 'Quite different words: No token with id tok_x; already tokenized as tok_y; revoked',
        context: RICH_CONTEXT,
      }),
      ctx,
    )
    expect(first.message).toBe('First wording of it.')
    expect(second.message).toBe(
      'Quite different words: No token with id tok_x; already tokenized as tok_y; revoked',
    )
    expect(second.code).toBe(first.code)
    expect(second.hint).toBe(first.hint)
    const verbose = (details: string | undefined) =>
      details?.split('\n').filter((l) => !l.includes('"detail"'))
    expect(verbose(second.details)).toEqual(verbose(first.details))
  })

  it('refused fields are named the same whatever the detail says', () => {
    const errors = [{ path: 'amount', message: 'Too small: expected number to be >0' }]
    const ctx: Partial<FailureContext> = {
      command: 'transfers request',
      fields: TRANSFERS.request,
      flagValues: { '--amount': '0' },
      request: { body: { amount: 0 }, fromFlags: new Set(['amount']) },
    }
    const first = failing(problem('invalid_field', { detail: 'Invalid body: amount: ...', errors }), ctx)
    const second = failing(problem('invalid_field', { detail: 'Whatever the server says now', errors }), ctx)
    expect(second.message).toBe(first.message)
    expect(second.hint).toBe(first.hint)
    expect(second.code).toBe(first.code)
  })

  it("every reason has an exit code: its code's, or its own where that differs", () => {
    for (const reason of reasons) {
      const failure = failing(problem(reason, { context: RICH_CONTEXT }), {
        command: 'tokens get',
        args: ['tok_1'],
      })
      expect(failure.code, reason).toBe(EXIT_OF_REASON[reason] ?? EXIT_OF_CODE[REASONS[reason].code])
    }
    expect(failing(problem('route_not_found')).code).toBe(EXIT.usage)
    expect(failing(problem('token_not_found')).code).toBe(EXIT.notFound)
  })

  it('--verbose shows the request id, the reason and the context', () => {
    const failure = failing(
      problem('credential_already_tokenized', {
        context: { credential_id: 'cred_1', token_id: 'tok_9' },
        requestId: 'req_1',
      }),
    )
    const lines = failure.details!.split('\n')
    expect(lines.slice(0, 3)).toEqual([
      'request id: req_1',
      'reason: credential_already_tokenized',
      'context: {"credential_id":"cred_1","token_id":"tok_9"}',
    ])
  })
})

describe('connection input', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rwa-failure-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it.each([
    ['127.0.0.1:4600', /has no scheme/, 'did you mean http://127.0.0.1:4600?'],
    ['localhost:4600', /has no scheme/, 'did you mean http://localhost:4600?'],
    ['ftp://x', /not http or https/, undefined],
    ['http://127.0.0.1:4600/console/rwa', /points into the API/, 'did you mean http://127.0.0.1:4600?'],
    [
      'https://h.example/rwa/console/billing/pricing',
      /points into the API/,
      'did you mean https://h.example/rwa?',
    ],
  ])('--url %s is refused with what was meant', (url, message, hint) => {
    let thrown: unknown
    try {
      checkServerUrl(url, '--url')
    } catch (error) {
      thrown = error
    }
    expect(thrown).toBeInstanceOf(ExitError)
    expect((thrown as ExitError).code).toBe(2)
    expect((thrown as ExitError).message).toMatch(message)
    if (hint) expect((thrown as ExitError).hint).toBe(hint)
  })

  it('a base URL, with or without a path prefix, is accepted', () => {
    expect(() => checkServerUrl('http://127.0.0.1:4600', '--url')).not.toThrow()
    expect(() => checkServerUrl('https://gw.example.com/rwa/', '--url')).not.toThrow()
  })

  it('an empty --api-key-file says it is empty, not that no key was given', () => {
    const file = join(dir, 'empty.key')
    writeFileSync(file, '\n')
    expect(() => readApiKeyFile(file)).toThrow(`--api-key-file ${file} is empty`)
  })
})
