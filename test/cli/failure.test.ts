import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { checkServerUrl, readApiKeyFile } from '../../src/cli/context.js'
import { ExitError } from '../../src/cli/exit-error.js'
import { CommandFailure, describeFailure, type FailureContext, inCliTerms } from '../../src/cli/failure.js'
import { ApiProblemError } from '../../src/client/errors.js'
import type { ErrorCode, FieldError } from '../../src/contract/errors.js'
import { ERROR_STATUS, problemType, REASONS, type Reason } from '../../src/contract/errors.js'

/** The first reason of a code: enough for tests that only look at the code. */
const reasonOfCode = (code: ErrorCode): Reason =>
  (Object.keys(REASONS) as Reason[]).find((reason) => REASONS[reason].code === code)!

/*
 * What a CLI user reads when the API refuses: each case the issue named, in CLI terms. The details
 * below are the server's own wording (copied from server/), so a change there shows up here.
 */

const problem = (code: ErrorCode, detail: string, errors?: FieldError[], retryAfter?: number) =>
  new ApiProblemError(
    {
      type: problemType(code),
      title: code,
      status: ERROR_STATUS[code],
      detail,
      code,
      reason: reasonOfCode(code),
      context: {},
      ...(errors ? { errors } : {}),
    },
    retryAfter,
  )

const context = (over: Partial<FailureContext> = {}): FailureContext => ({
  command: '',
  args: [],
  argumentNames: [],
  flags: [],
  ...over,
})

const failing = (error: unknown, ctx: Partial<FailureContext>) =>
  describeFailure(new CommandFailure(error, context(ctx)))

describe('a 400 names the flag that gave the refused field', () => {
  const transferFlags = [
    '--token-id',
    '--from',
    '--to',
    '--recipient-did',
    '--amount',
    '--sender-did',
    '--file',
  ]

  it('--recipient-did, with the value given and an example; the hint names the command', () => {
    const failure = failing(
      problem('invalid_request', 'Invalid body: recipient_did: expected a DID, e.g. did:web:acme:alice', [
        { path: 'recipient_did', message: 'expected a DID, e.g. did:web:acme:alice' },
      ]),
      {
        command: 'transfers request',
        flags: transferFlags,
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

  it('a flag that differs from its field (--from), and an example where the message has none', () => {
    const failure = failing(
      problem('invalid_request', 'Invalid body', [
        { path: 'from_jurisdiction', message: 'expected a short code' },
        { path: 'amount', message: 'Too small: expected number to be >0' },
      ]),
      {
        command: 'transfers request',
        flags: transferFlags,
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

  it('a field that came from --file is named as such, a query flag by its value, a path id by its argument', () => {
    const fromFile = failing(
      problem('invalid_request', 'x', [{ path: 'owner_did', message: 'expected a DID' }]),
      {
        command: 'credentials issue',
        flags: ['--owner-did', '--file'],
        request: { body: { owner_did: 'alice' }, fromFlags: new Set(), file: 'cred.json' },
      },
    )
    expect(fromFile.message).toBe('owner_did (from --file cred.json): expected a DID (got "alice")')

    const query = failing(problem('invalid_request', 'x', [{ path: 'days', message: 'Too big' }]), {
      command: 'usage',
      flags: ['--org', '--days'],
      flagValues: { '--days': '9999' },
    })
    expect(query.message).toBe('--days: Too big (got "9999"; e.g. --days 30)')

    const path = failing(
      problem('invalid_request', 'x', [{ path: 'id', message: 'expected an id starting with "cred_"' }]),
      {
        command: 'credentials get',
        args: ['xyz'],
        argumentNames: ['credential_id'],
      },
    )
    expect(path.message).toBe('<credential_id>: expected an id starting with "cred_" (got "xyz")')
  })
})

describe('messages speak of rwa commands, not endpoints', () => {
  it('plan_required tells to start the trial with `rwa keys create --trial`', () => {
    const detail =
      'Governance endpoints need the Pro or Enterprise tier or an active trial; organization acme is on the free tier. To get access, start its 14-day trial (POST /console/billing/keys with start_trial: true) or subscribe to Pro or Enterprise (see GET /console/billing/pricing)'
    const failure = failing(problem('plan_required', detail), { command: 'jurisdictions list' })
    expect(failure.code).toBe(3)
    expect(failure.message).toContain('start its 14-day trial (`rwa keys create --trial --name NAME`)')
    expect(failure.message).toContain('(see `rwa pricing`)')
    expect(failure.message).not.toMatch(/\/console\//)
    expect(failure.hint).toMatch(/`rwa subscription get`/)
  })

  it('an unknown organization names `rwa keys create --org`', () => {
    expect(inCliTerms('No organization acme: create a key for it first (POST /console/billing/keys)')).toBe(
      'No organization acme: create a key for it first (`rwa keys create --org acme --name NAME`)',
    )
  })

  it('a credential type a jurisdiction does not accept names the update that adds it', () => {
    expect(
      inCliTerms(
        'Jurisdiction XX does not accept PropertyOwnership credentials (it accepts: RegulatoryAttestation); add PropertyOwnership to its credential_types with PUT /console/rwa/jurisdictions/XX',
      ),
    ).toBe(
      'Jurisdiction XX does not accept PropertyOwnership credentials (it accepts: RegulatoryAttestation); add PropertyOwnership to its credential_types with `rwa jurisdictions update XX --credential-types RegulatoryAttestation,PropertyOwnership`',
    )
  })
})

describe('hints fit their case', () => {
  it('jurisdictions remove: only trust in the way → how to revoke it; credentials in the way → it stays', () => {
    const trustOnly = failing(
      problem(
        'conflict',
        'Jurisdiction SG is still in use by 1 active trust relation; revoke its trust relations first',
      ),
      { command: 'jurisdictions remove', args: ['SG'] },
    )
    expect(trustOnly.hint).toBe(
      '`rwa trust list --jurisdiction SG --status active` lists them; `rwa trust revoke --from A --to B --yes` revokes one',
    )
    const kept = failing(
      problem(
        'conflict',
        'Jurisdiction US is still in use by 1 credential, 1 active trust relation; credentials, attestations and tokens keep a jurisdiction for good (they are its audit trail), so it cannot be removed',
      ),
      { command: 'jurisdictions remove', args: ['US'] },
    )
    expect(kept.hint).not.toMatch(/revoke/)
    expect(kept.hint).toMatch(/`rwa jurisdictions update US`/)
  })

  it('a second keys revoke points at `rwa keys list`, never at a `keys get` that does not exist', () => {
    const failure = failing(
      problem('conflict', 'API key key_1 is already revoked; revocation is permanent'),
      {
        command: 'keys revoke',
        args: ['key_1'],
      },
    )
    expect(failure.code).toBe(5)
    expect(failure.hint).toMatch(/`rwa keys list`/)
    expect(failure.hint).not.toMatch(/get/)
  })

  it('a 404 names the list command of the kind it names', () => {
    expect(
      failing(problem('not_found', 'No token with id tok_x'), { command: 'transfers request' }).hint,
    ).toBe('`rwa tokens list` shows what exists')
    expect(
      failing(problem('not_found', 'No route for GET /console/console/x'), { command: 'pricing' }).hint,
    ).toMatch(/--url/)
  })

  it('a 429 says what the message does not: --wait, and how long --wait-max allows', () => {
    const detail =
      'Rate limit of 60 requests per minute reached for organization acme; retry in 42 s or move to a higher tier'
    const plain = failing(problem('rate_limited', detail, undefined, 42), { command: 'keys list' })
    expect(plain.code).toBe(5)
    expect(plain.message).toBe(detail)
    expect(plain.hint).toMatch(/--wait/)
    expect(plain.hint).not.toMatch(/retry in/)
    const waited = failing(problem('rate_limited', detail, undefined, 42), {
      command: 'keys list',
      waitMaxSeconds: 5,
    })
    expect(waited.hint).toMatch(/42 s away, more than --wait-max 5/)
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
