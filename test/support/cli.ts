import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { execa, type Result, type ResultPromise } from 'execa'
import { afterAll, beforeAll, expect } from 'vitest'
import { RWA_BIN, type ServerProcess, startServerProcess } from './server-process.js'

/** The result of one `rwa` run: exit code, stdout, stderr. */
export interface CliRun {
  exitCode: number
  stdout: string
  stderr: string
}

/**
 * A home for CLI runs: its own XDG_CONFIG_HOME (so no real profile leaks in) and a clean environment
 * holding only what the test gives, so RWA_* variables of the machine running the tests cannot either.
 */
export interface CliHome {
  dir: string
  configHome: string
  run(
    args: string[],
    options?: { env?: Record<string, string>; input?: string; timeout?: number },
  ): Promise<CliRun>
  cleanup(): void
}

export function cliHome(base: Record<string, string> = {}): CliHome {
  const dir = mkdtempSync(join(tmpdir(), 'rwa-cli-'))
  const configHome = join(dir, 'config')
  return {
    dir,
    configHome,
    async run(args, options = {}) {
      const result: Result = await execa(process.execPath, [RWA_BIN, ...args], {
        extendEnv: false,
        env: {
          PATH: process.env.PATH ?? '',
          HOME: dir,
          XDG_CONFIG_HOME: configHome,
          ...base,
          ...options.env,
        },
        input: options.input ?? '',
        reject: false,
        timeout: options.timeout ?? 20_000,
      })
      return { exitCode: result.exitCode ?? -1, stdout: String(result.stdout), stderr: String(result.stderr) }
    },
    cleanup() {
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/** Calls the API directly (not through the CLI), to compare with what the CLI printed. */
export async function api(url: string, path: string, key?: string, init: RequestInit = {}): Promise<unknown> {
  const response = await fetch(new URL(path, url), {
    ...init,
    headers: { 'content-type': 'application/json', ...(key ? { 'x-api-key': key } : {}) },
  })
  return response.json()
}

/** Creates an organization with a trial key through the API (admin key), so each test has its own. */
export async function newOrg(url: string, adminKey: string, orgId: string): Promise<string> {
  const body = (await api(url, '/console/billing/keys', adminKey, {
    method: 'POST',
    body: JSON.stringify({ org_id: orgId, name: `${orgId} test key`, start_trial: true }),
  })) as { api_key: string }
  return body.api_key
}

/** The server process and CLI home a test file shares, available once its `beforeAll` has run. */
export interface SharedServerAndHome {
  readonly server: ServerProcess
  readonly home: CliHome
}

/**
 * Starts one real server process and one CLI home for a test file (each test then works in its own
 * organization), and cleans both up after the file's tests.
 */
export function useServerAndHome(): SharedServerAndHome {
  let server: ServerProcess | undefined
  let home: CliHome | undefined
  beforeAll(async () => {
    server = await startServerProcess()
    home = cliHome()
  })
  afterAll(async () => {
    await server?.cleanup()
    home?.cleanup()
  })
  return {
    get server() {
      if (!server) throw new Error('the shared server starts in beforeAll')
      return server
    },
    get home() {
      if (!home) throw new Error('the shared CLI home is made in beforeAll')
      return home
    },
  }
}

/** The CLI bound to one organization's key on a file's shared server. */
export interface OrgCli {
  /** The organization's key (RWA_API_KEY of every run). */
  key: string
  /** Runs `rwa ARGS`, with `input` on stdin. */
  run(args: string[], input?: string): Promise<CliRun>
  /** Runs `rwa ARGS --json`, expects exit 0 and returns the parsed stdout. */
  json(args: string[]): Promise<any>
}

/** The CLI of the shared home, talking to the shared server with `key`. */
export function cliAs(shared: SharedServerAndHome, key: string): OrgCli {
  const run = (args: string[], input?: string) =>
    shared.home.run(args, { env: { RWA_URL: shared.server.url, RWA_API_KEY: key }, input })
  return {
    key,
    run,
    async json(args) {
      const result = await run([...args, '--json'])
      expect(result.exitCode, `rwa ${args.join(' ')}\n${result.stderr}`).toBe(0)
      return JSON.parse(result.stdout)
    },
  }
}

/** A new organization on the shared server (a trial key, so every plan's commands work) and its CLI. */
export async function newOrgCli(shared: SharedServerAndHome, orgId: string): Promise<OrgCli> {
  return cliAs(shared, await newOrg(shared.server.url, shared.server.adminKey, orgId))
}

/**
 * A token to govern, made through the CLI: jurisdiction US requiring kyc, a credential of `owner`
 * (title deed `titleDeed`, which must be new to the organization), a kyc attestation in US for each
 * of `holders` (so each may receive units), and a token of 1000 units held by `owner`.
 */
export async function tokenThroughCli(
  rwa: OrgCli,
  options: { owner: string; holders: string[]; titleDeed: string },
): Promise<{ credential: any; tokenId: string }> {
  await rwa.json([
    'jurisdictions',
    'register',
    '--id',
    'US',
    '--name',
    'United States',
    '--regulatory-body',
    'SEC',
    '--transfer-requirements',
    'kyc',
  ])
  const credential = await rwa.json([
    'credentials',
    'issue',
    '--jurisdiction',
    'US',
    '--owner-did',
    options.owner,
    '--address',
    '1 Main St',
    '--type',
    'commercial',
    '--value-usd',
    '1000000',
    '--title-deed',
    options.titleDeed,
  ])
  for (const did of options.holders) {
    await rwa.json([
      'attestations',
      'submit',
      '--jurisdiction',
      'US',
      '--subject-did',
      did,
      '--type',
      'kyc',
      '--attester',
      'KYC Co',
    ])
  }
  const token = await rwa.json([
    'tokens',
    'create',
    '--credential-id',
    credential.credential_id,
    '--total-supply',
    '1000',
  ])
  return { credential, tokenId: token.token_id }
}

/**
 * Starts `rwa sandbox ARGS --json` in `home` with only `env` (besides PATH and HOME) and resolves with
 * the process and the JSON object it printed once ready. The caller stops it (SIGTERM).
 */
export async function startSandbox(
  home: CliHome,
  args: string[],
  env: Record<string, string> = {},
): Promise<{ child: ResultPromise; info: any }> {
  const child = execa(process.execPath, [RWA_BIN, 'sandbox', ...args, '--json'], {
    extendEnv: false,
    env: { PATH: process.env.PATH ?? '', HOME: home.dir, XDG_CONFIG_HOME: home.configHome, ...env },
    reject: false,
    buffer: false,
  })
  try {
    const info = await new Promise<any>((resolve, reject) => {
      let out = ''
      const timer = setTimeout(() => reject(new Error(`sandbox did not report in 30 s: ${out}`)), 30_000)
      child.stdout?.on('data', (chunk: Buffer) => {
        out += chunk.toString()
        if (out.includes('\n}')) {
          clearTimeout(timer)
          resolve(JSON.parse(out))
        }
      })
      child.on('exit', () => reject(new Error(`sandbox exited early: ${out}`)))
    })
    return { child, info }
  } catch (error) {
    if (child.exitCode === null) child.kill('SIGKILL')
    throw error
  }
}
