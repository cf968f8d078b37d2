import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { execa, type ResultPromise } from 'execa'
import { decodeJwt, decodeProtectedHeader } from 'jose'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { decodeStatusList, statusBit } from '../../src/proof/status-list.js'
import { type CliHome, cliAs, cliHome, newOrg, type OrgCli, tokenThroughCli } from '../support/cli.js'
import { RWA_BIN, startServerProcess } from '../support/server-process.js'

/*
 * `rwa dev issuer` end to end, each command its own process as a person runs them: the issuer served
 * by `start` (a did:web on loopback), credentials issued, revoked, suspended and reinstated from another
 * process, and a key rotation; against a real server that fetches its DID document and status lists
 * over http (RWA_ALLOW_HTTP_ISSUERS=1) and keeps a list at most 1 s (RWA_ISSUER_STATUS_MAX_AGE=1s).
 */

vi.setConfig({ testTimeout: 120_000 })

const ERIN = 'did:web:acme:erin'
const FRANK = 'did:web:acme:frank'

/** `rwa dev issuer start --json ARGS` in `home`; resolves once it printed what it serves. */
async function startDevIssuer(home: CliHome, args: string[]): Promise<{ child: ResultPromise; info: any }> {
  const child = execa(process.execPath, [RWA_BIN, 'dev', 'issuer', 'start', ...args, '--json'], {
    extendEnv: false,
    env: { PATH: process.env.PATH ?? '', HOME: home.dir, XDG_CONFIG_HOME: home.configHome },
    reject: false,
    buffer: false,
  })
  try {
    const info = await new Promise<any>((resolve, reject) => {
      let out = ''
      const timer = setTimeout(() => reject(new Error(`dev issuer did not report in 20 s: ${out}`)), 20_000)
      child.stdout?.on('data', (chunk: Buffer) => {
        out += chunk.toString()
        if (out.includes('\n}')) {
          clearTimeout(timer)
          resolve(JSON.parse(out))
        }
      })
      child.on('exit', () => reject(new Error(`dev issuer exited early: ${out}`)))
    })
    return { child, info }
  } catch (error) {
    if (child.exitCode === null) child.kill('SIGKILL')
    throw error
  }
}

let server: Awaited<ReturnType<typeof startServerProcess>>
let home: CliHome
let issuer: { child: ResultPromise; info: any }
let dir: string
let rwa: OrgCli
let tokenId: string
beforeAll(async () => {
  server = await startServerProcess({
    env: { RWA_ALLOW_HTTP_ISSUERS: '1', RWA_ISSUER_STATUS_MAX_AGE: '1s' },
  })
  home = cliHome()
  dir = join(home.dir, 'issuer')
  issuer = await startDevIssuer(home, ['--port', '0', '--dir', dir])
  rwa = cliAs({ server, home }, await newOrg(server.url, server.adminKey, 'dev-issuer-cli'))
  ;({ tokenId } = await tokenThroughCli(rwa, {
    owner: 'did:web:acme:alice',
    holders: [],
    titleDeed: 'DEV-ISSUER-1',
  }))
})
afterAll(async () => {
  if (issuer && issuer.child.exitCode === null) issuer.child.kill('SIGKILL')
  await server?.cleanup()
  home?.cleanup()
})

/** `rwa dev issuer ARGS --dir DIR`. */
const dev = (args: string[], options: { env?: Record<string, string> } = {}) =>
  home.run(['dev', 'issuer', ...args, '--dir', dir], options)

/** A transfer of 10 units to `to` within US: its exit code and the transfer as JSON. */
async function transferTo(to: string): Promise<{ exitCode: number; transfer: any; stderr: string }> {
  const result = await rwa.run([
    'transfers',
    'request',
    '--token-id',
    tokenId,
    '--from',
    'US',
    '--to',
    'US',
    '--recipient-did',
    to,
    '--amount',
    '10',
    '--json',
  ])
  return { exitCode: result.exitCode, transfer: JSON.parse(result.stdout || 'null'), stderr: result.stderr }
}

/** Issues a KYC credential to `subject` at the dev issuer and submits it: its id there and the attestation. */
async function issueAndSubmit(subject: string): Promise<{ id: string; vc: string; attestation: any }> {
  const issued = await dev(['issue', '--subject', subject, '--type', 'KYCCredential', '--valid-for', '30d'])
  expect(issued.exitCode, issued.stderr).toBe(0)
  const vc = issued.stdout.trim()
  const id = /issued (vc-\d+)/.exec(issued.stderr)![1]!
  const file = join(home.dir, `${id}.jwt`)
  writeFileSync(file, issued.stdout)
  const attestation = await rwa.json(['attestations', 'submit', '--vc', file])
  return { id, vc, attestation }
}

/** Past the server's status max age (1 s): its next evaluation fetches the lists again. */
const pastMaxAge = () => new Promise((resolve) => setTimeout(resolve, 1_300))

describe('rwa dev issuer', () => {
  it('serves its DID document and both status lists, and keeps its state in --dir', async () => {
    const { info } = issuer
    expect(info.did).toMatch(/^did:web:127\.0\.0\.1%3A\d+$/)
    expect(info.document_url).toBe(`http://${info.did.slice(8).replace('%3A', ':')}/.well-known/did.json`)
    const document = (await (await fetch(info.document_url)).json()) as any
    expect(document.id).toBe(info.did)
    expect(document.verificationMethod).toEqual([
      {
        id: `${info.did}#key-1`,
        type: 'JsonWebKey',
        controller: info.did,
        publicKeyJwk: { kty: 'OKP', crv: 'Ed25519', x: expect.any(String) },
      },
    ])
    for (const purpose of ['revocation', 'suspension']) {
      const response = await fetch(info.status_lists[purpose])
      expect(response.headers.get('content-type')).toBe('application/vc+jwt')
      const jwt = await response.text()
      expect(decodeProtectedHeader(jwt)).toMatchObject({ alg: 'EdDSA', kid: `${info.did}#key-1` })
      const subject = (decodeJwt(jwt) as any).credentialSubject
      expect(subject).toMatchObject({ type: 'BitstringStatusList', statusPurpose: purpose })
      expect(subject.encodedList.startsWith('u')).toBe(true)
      expect(decodeStatusList(subject.encodedList)).toHaveLength(16_384)
    }
    expect((await fetch(`${info.document_url}x`)).status).toBe(404)

    // Its private keys are in a file only its owner reads.
    expect(statSync(join(dir, 'issuer.json')).mode & 0o077).toBe(0)
    const shown = JSON.parse((await dev(['show', '--json'])).stdout)
    expect(shown).toMatchObject({ did: info.did, running: true, credentials: [] })
    expect(JSON.stringify(shown)).not.toMatch(/"d":/)

    // A second one on the same directory is refused; a directory with no issuer says how to make one.
    const again = await dev(['start', '--port', '0'])
    expect(again.exitCode).toBe(5)
    expect(again.stderr).toContain(`a dev issuer already serves ${dir}`)
    const none = await home.run([
      'dev',
      'issuer',
      'issue',
      '--subject',
      ERIN,
      '--dir',
      join(home.dir, 'none'),
    ])
    expect(none.exitCode).toBe(2)
    expect(none.stderr).toContain('no dev issuer in')
    expect(none.stderr).toContain('rwa dev issuer start')
    const noSubject = await dev(['issue'])
    expect(noSubject.exitCode).toBe(2)
    expect(noSubject.stderr).toContain('--subject')
    const badDuration = await dev(['issue', '--subject', ERIN, '--valid-for', 'soon'])
    expect(badDuration.exitCode).toBe(2)
    expect(badDuration.stderr).toContain('--valid-for must be a duration')
  })

  it('issues a credential the server accepts: a transfer is approved on it; revoked at the issuer, the next is refused', async () => {
    await rwa.json([
      'issuers',
      'add',
      '--issuer-id',
      'dev-kyc',
      '--name',
      'Dev KYC',
      '--did',
      issuer.info.did,
      '--requirement',
      'kyc=KYCCredential',
      '--jurisdiction',
      'US',
    ])
    const refusedBefore = await transferTo(ERIN)
    expect(refusedBefore.exitCode).toBe(6)

    const issued = await dev(['issue', '--subject', ERIN])
    expect(issued.exitCode, issued.stderr).toBe(0)
    // stdout is the VC-JWT and nothing else (its one line), so it pipes.
    expect(issued.stdout).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/)
    const payload = decodeJwt(issued.stdout.trim()) as any
    expect(payload).toMatchObject({
      iss: issuer.info.did,
      type: ['VerifiableCredential', 'KYCCredential'],
      credentialSubject: { id: ERIN },
    })
    expect(payload.credentialStatus.map((s: any) => s.statusPurpose)).toEqual(['revocation', 'suspension'])
    expect(issued.stderr).toContain(`issued vc-1 (KYCCredential) to ${ERIN}`)
    const submitted = await rwa.run(['attestations', 'submit', '--vc', '-', '--json'], issued.stdout)
    expect(submitted.exitCode, submitted.stderr).toBe(0)
    const attestation = JSON.parse(submitted.stdout)
    expect(attestation).toMatchObject({ source: 'external', issuer_id: 'dev-kyc', subject_did: ERIN })

    const approved = await transferTo(ERIN)
    expect(approved.exitCode, approved.stderr).toBe(0)
    expect(approved.transfer.status).toBe('approved')
    const kyc = approved.transfer.compliance_details.checks.find((c: any) => c.requirement === 'kyc')
    expect(kyc).toMatchObject({ satisfied: true, evidence: attestation.attestation_id })
    expect(kyc.reason).toContain(`trusted issuer dev-kyc (${issuer.info.did})`)

    const revoked = await dev(['revoke', 'vc-1'])
    expect(revoked.exitCode, revoked.stderr).toBe(0)
    expect(revoked.stderr).toContain('revoked vc-1')
    const list = await (await fetch(issuer.info.status_lists.revocation)).text()
    const bits = decodeStatusList((decodeJwt(list) as any).credentialSubject.encodedList)
    expect(statusBit(bits, Number(payload.credentialStatus[0].statusListIndex))).toBe(true)

    await pastMaxAge()
    const refused = await transferTo(ERIN)
    expect(refused.exitCode).toBe(6)
    expect(refused.transfer.status).toBe('rejected')
    expect(JSON.stringify(refused.transfer.compliance_details)).toContain('revoked')

    // Revoking again, or what it never issued, says so.
    const twice = await dev(['revoke', 'vc-1'])
    expect(twice.exitCode).toBe(5)
    expect(twice.stderr).toContain('cannot revoke vc-1: it is revoked')
    const unknown = await dev(['revoke', 'vc-9'])
    expect(unknown.exitCode).toBe(4)
    expect(unknown.stderr).toContain('issued no credential "vc-9"')
    const shown = JSON.parse((await dev(['show', '--json'])).stdout)
    expect(shown.credentials.map((c: any) => [c.id, c.subject, c.state])).toEqual([['vc-1', ERIN, 'revoked']])
  })

  it('suspends and reinstates: a transfer is refused while suspended and approved again after', async () => {
    // Issued straight into the server through a pipe, as a shell runs it: the reader may find the
    // pipe empty (and non-blocking) before the issuer wrote, and waits for it.
    const piped = await execa(
      'sh',
      [
        '-c',
        `"$NODE" "$RWA" dev issuer issue --subject ${FRANK} --dir "$DIR" | "$NODE" "$RWA" attestations submit --vc - --json`,
      ],
      {
        extendEnv: false,
        env: {
          PATH: process.env.PATH ?? '',
          HOME: home.dir,
          XDG_CONFIG_HOME: home.configHome,
          NODE: process.execPath,
          RWA: RWA_BIN,
          DIR: dir,
          RWA_URL: server.url,
          RWA_API_KEY: rwa.key,
        },
        reject: false,
      },
    )
    expect(piped.exitCode, piped.stderr).toBe(0)
    expect(JSON.parse(piped.stdout)).toMatchObject({ source: 'external', subject_did: FRANK })
    const id = /issued (vc-\d+)/.exec(piped.stderr)![1]!
    expect((await transferTo(FRANK)).exitCode).toBe(0)

    const suspended = await dev(['suspend', id])
    expect(suspended.exitCode, suspended.stderr).toBe(0)
    await pastMaxAge()
    const refused = await transferTo(FRANK)
    expect(refused.exitCode).toBe(6)
    expect(JSON.stringify(refused.transfer.compliance_details)).toContain('suspended')
    expect((await dev(['suspend', id])).exitCode).toBe(5)

    const reinstated = await dev(['reinstate', id])
    expect(reinstated.exitCode, reinstated.stderr).toBe(0)
    await pastMaxAge()
    expect((await transferTo(FRANK)).exitCode).toBe(0)
    const twice = await dev(['reinstate', id])
    expect(twice.exitCode).toBe(5)
    expect(twice.stderr).toContain('it is not suspended')
  })

  it('rotates its key: the server retires the old one, new credentials are accepted and the old still verify', async () => {
    const rotated = await dev(['rotate-key', '--json'])
    expect(rotated.exitCode, rotated.stderr).toBe(0)
    expect(JSON.parse(rotated.stdout)).toMatchObject({
      kid: `${issuer.info.did}#key-2`,
      form: 'multikey',
      removed_from_document: [`${issuer.info.did}#key-1`],
    })
    const document = (await (await fetch(issuer.info.document_url)).json()) as any
    expect(document.verificationMethod.map((m: any) => [m.id, m.type])).toEqual([
      [`${issuer.info.did}#key-2`, 'Multikey'],
    ])
    const refreshed = await rwa.json(['issuers', 'refresh', 'dev-kyc'])
    expect(refreshed.keys.map((k: any) => [k.kid, k.retired_at === null])).toEqual([
      [`${issuer.info.did}#key-1`, false],
      [`${issuer.info.did}#key-2`, true],
    ])

    // Frank's credential, signed by key-1 before, still counts (the lists are signed by key-2 now).
    await pastMaxAge()
    expect((await transferTo(FRANK)).exitCode).toBe(0)
    // A new one is signed by key-2 and accepted.
    const { vc, attestation } = await issueAndSubmit('did:web:acme:gina')
    expect(decodeProtectedHeader(vc).kid).toBe(`${issuer.info.did}#key-2`)
    expect(attestation.issuer_id).toBe('dev-kyc')
    expect((await transferTo('did:web:acme:gina')).exitCode).toBe(0)
  })

  it('issues from several processes at once without losing one (its state is changed under a lock)', async () => {
    const before = JSON.parse((await dev(['show', '--json'])).stdout).credentials.length
    const runs = await Promise.all(
      ['h1', 'h2', 'h3', 'h4'].map((name) => dev(['issue', '--subject', `did:web:acme:${name}`, '--json'])),
    )
    for (const run of runs) expect(run.exitCode, run.stderr).toBe(0)
    const issued = runs.map((run) => JSON.parse(run.stdout))
    expect(new Set(issued.map((i) => i.id)).size).toBe(4)
    expect(new Set(issued.map((i) => i.index)).size).toBe(4)
    const shown = JSON.parse((await dev(['show', '--json'])).stdout)
    expect(shown.credentials).toHaveLength(before + 4)
  })

  it('stops on SIGTERM, saying in its directory that it no longer runs', async () => {
    issuer.child.kill('SIGTERM')
    expect((await issuer.child).exitCode).toBe(0)
    expect(existsSync(join(dir, 'server.json'))).toBe(false)
    const shown = await dev(['show'])
    expect(shown.exitCode).toBe(0)
    expect(shown.stderr).toContain('the dev issuer is not running')
    // Its state stays: started again, it is the same DID on the same port.
    const again = await startDevIssuer(home, ['--dir', dir])
    try {
      expect(again.info.did).toBe(issuer.info.did)
      expect(JSON.parse(readFileSync(join(dir, 'server.json'), 'utf8')).did).toBe(issuer.info.did)
    } finally {
      again.child.kill('SIGTERM')
      await again.child
    }
  })
})
