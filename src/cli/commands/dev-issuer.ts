import { dirname, join, resolve } from 'node:path'
import type { Command } from 'commander'
import type { DevIssuer, IssuedRecord, StatusPurpose } from '../../dev-issuer/issuer.js'
import { withContext } from '../context.js'
import { EXIT, ExitError } from '../exit-error.js'
import { duration, list, wholeNumber } from '../flags/parse.js'
import type { CliContext } from '../context.js'
import { yesNo } from '../output.js'
import { profilesPath } from '../profiles.js'

/*
 * `rwa dev issuer`: a KYC provider on this machine (docs/issuers.md, "Accepting KYC from a provider"),
 * so that the trusted-issuer flow can be tried offline. `start` serves it; the other commands change
 * or show it, each a process of its own: the issuer lives in a directory (src/dev-issuer/store.ts),
 * --dir, RWA_DEV_ISSUER_DIR, else `dev-issuer/` next to the CLI's profiles. A test issuer: its private
 * keys sit unencrypted in that directory, and revoking at it asks for no confirmation.
 */

interface DirOptions {
  dir?: string
}

/** The issuer's directory: --dir, then RWA_DEV_ISSUER_DIR, then `$XDG_CONFIG_HOME/rwa/dev-issuer`. */
export function issuerDir(options: DirOptions, env = process.env): string {
  if (options.dir !== undefined && options.dir !== '') return resolve(options.dir)
  if (env.RWA_DEV_ISSUER_DIR) return resolve(env.RWA_DEV_ISSUER_DIR)
  return join(dirname(profilesPath(env)), 'dev-issuer')
}

const store = () => import('../../dev-issuer/store.js')

/** The issuer of `dir`; exit 2 when there is none yet (it is made by `start`). */
async function existing(dir: string): Promise<DevIssuer> {
  const issuer = await readOrExplain(dir)
  if (!issuer) {
    throw new ExitError(
      EXIT.usage,
      `no dev issuer in ${dir} yet`,
      `start one with \`rwa dev issuer start${dirFlag(dir)}\` (its DID names its port, so it is made when it first listens)`,
    )
  }
  return issuer
}

async function readOrExplain(dir: string): Promise<DevIssuer | undefined> {
  try {
    return (await store()).readIssuer(dir)
  } catch (error) {
    throw new ExitError(EXIT.usage, (error as Error).message, 'give another --dir, or remove that directory')
  }
}

/** ` --dir DIR` when `dir` is not the default one, for the commands a message suggests. */
function dirFlag(dir: string): string {
  return dir === issuerDir({}) ? '' : ` --dir ${dir}`
}

/** The issuer as `show` and `start --json` print it. */
function describe(issuer: DevIssuer, dir: string, running: { pid: number } | undefined) {
  return {
    did: issuer.did,
    document_url: issuer.documentUrl,
    status_lists: {
      revocation: issuer.statusListUrl('revocation'),
      suspension: issuer.statusListUrl('suspension'),
    },
    dir,
    running: running !== undefined,
    pid: running?.pid ?? null,
    keys: issuer.keys.map((k) => ({
      kid: k.kid,
      form: k.form,
      published: k.published,
      signing: k === issuer.currentKey,
      public_jwk: k.publicJwk,
    })),
    credentials: issuer.issued.map((r) => ({ ...r, state: issuer.statusOf(r) })),
  }
}

/** `rwa dev issuer start [--port P] [--dir DIR]`: serves the issuer until SIGINT or SIGTERM. */
export function start(options: DirOptions & { port?: string }, command: Command) {
  return withContext(command, async (ctx) => {
    const dir = issuerDir(options)
    const port = options.port === undefined ? undefined : wholeNumber(options.port, '--port')
    if (port !== undefined && (port < 0 || port > 65_535)) {
      throw new ExitError(EXIT.usage, `--port must be 0 to 65535, got ${port}`)
    }
    const { runningIssuer, serveIssuerDir, DEFAULT_ISSUER_PORT } = await store()
    await readOrExplain(dir)
    const other = runningIssuer(dir)
    if (other) {
      throw new ExitError(
        EXIT.conflict,
        `a dev issuer already serves ${dir} (pid ${other.pid}, ${other.did})`,
        'use it, stop it first, or give another --dir',
      )
    }
    const served = await serveIssuerDir(dir, port).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE') {
        throw new ExitError(
          EXIT.usage,
          `port ${port ?? DEFAULT_ISSUER_PORT} on 127.0.0.1 is already in use; nothing was started`,
          'give another --port (0 picks a free one; the DID names the port, so keep the one you choose)',
        )
      }
      throw error
    })
    const stopped = new Promise<void>((done) => {
      const stop = (signal: string) => {
        ctx.out.info(`${signal} received, stopping the dev issuer`)
        served.close().then(() => done())
      }
      process.once('SIGINT', () => stop('SIGINT'))
      process.once('SIGTERM', () => stop('SIGTERM'))
    })
    const { issuer } = served
    if (served.movedFrom) {
      ctx.out.warn(
        `the DID is now ${issuer.did} (it was ${served.movedFrom}): credentials issued before name the old one, and a server that registered it cannot resolve it`,
      )
    }
    ctx.out.result(describe(issuer, dir, { pid: process.pid }), () => {
      ctx.out.line(`rwa dev issuer ${served.created ? 'created and ' : ''}serving ${issuer.did}`)
      ctx.out.line(`DID document: ${issuer.documentUrl}`)
      ctx.out.line(`status lists: ${issuer.statusListUrl('revocation')}, …/suspension`)
      ctx.out.line(`state: ${dir}`)
      ctx.out.line('press Ctrl-C to stop; from another shell (a server with --allow-http-issuers):\n')
      ctx.out.line(
        `  rwa issuers add dev-kyc --name "Dev KYC" --did ${issuer.did} --requirement kyc=KYCCredential --jurisdiction US`,
      )
      ctx.out.line(`  rwa dev issuer issue${dirFlag(dir)} --subject did:web:acme:bob > bob.jwt`)
      ctx.out.line('  rwa attestations submit --vc bob.jwt\n')
    }, [issuer.did])
    await stopped
  })
}

/** `rwa dev issuer show`: the DID, its keys and what it issued, with each credential's state. */
export function show(options: DirOptions, command: Command) {
  return withContext(command, async (ctx) => {
    const dir = issuerDir(options)
    const issuer = await existing(dir)
    const running = (await store()).runningIssuer(dir)
    const described = describe(issuer, dir, running)
    ctx.out.result(
      described,
      () => {
        ctx.out.record([
          ['did', issuer.did],
          ['document_url', issuer.documentUrl],
          ['running', running ? `yes (pid ${running.pid})` : 'no'],
          ['dir', dir],
        ])
        ctx.out.table(
          ['kid', 'form', 'in document', 'signs'],
          described.keys.map((k) => [
            k.kid,
            k.form,
            yesNo(ctx.out.style, k.published, 'neutral'),
            yesNo(ctx.out.style, k.signing, 'neutral'),
          ]),
          { title: 'keys' },
        )
        showCredentials(ctx, issuer, issuer.issued)
      },
      issuer.issued.map((r) => r.id),
    )
    if (!running) warnNotRunning(ctx, dir)
  })
}

function showCredentials(ctx: CliContext, issuer: DevIssuer, records: IssuedRecord[]): void {
  ctx.out.table(
    ['id', 'subject', 'types', 'state', 'index', 'valid_until'],
    records.map((r) => [r.id, r.subject, r.types.join(', '), issuer.statusOf(r), r.index, r.valid_until]),
    { title: 'credentials' },
  )
}

function warnNotRunning(ctx: CliContext, dir: string): void {
  ctx.out.warn(
    `the dev issuer is not running: servers cannot fetch its DID document or status lists until \`rwa dev issuer start${dirFlag(dir)}\``,
  )
}

interface IssueOptions extends DirOptions {
  subject?: string
  type?: string[]
  validFor?: string
}

/** `rwa dev issuer issue --subject DID [--type T] [--valid-for 30d]`: the VC-JWT alone on stdout. */
export function issue(options: IssueOptions, command: Command) {
  return withContext(command, async (ctx) => {
    const subject = options.subject?.trim()
    if (!subject?.startsWith('did:')) {
      throw new ExitError(
        EXIT.usage,
        subject ? `--subject must be a DID, got ${JSON.stringify(subject)}` : 'missing --subject <did>',
        'e.g. --subject did:web:acme:bob',
      )
    }
    const types = options.type && options.type.length > 0 ? list(options.type) : ['KYCCredential']
    const bad = types.find((t) => !/^[A-Za-z][A-Za-z0-9_-]{0,63}$/.test(t))
    if (bad !== undefined) {
      throw new ExitError(
        EXIT.usage,
        `--type must be a VC type such as KYCCredential, got ${JSON.stringify(bad)}`,
      )
    }
    const validFor = duration(options.validFor ?? '30d', '--valid-for')
    const dir = issuerDir(options)
    await existing(dir)
    const { updateIssuer, runningIssuer } = await store()
    const issued = await updateIssuer(dir, async (issuer) => {
      const now = new Date()
      const result = await issuer!.issue({
        subject,
        types,
        validFrom: now,
        validUntil: new Date(now.getTime() + validFor),
        status: ['revocation', 'suspension'],
      })
      return { issuer: issuer!, result }
    })
    const { record, vc_jwt } = issued
    ctx.out.result({ ...record, vc_jwt }, () => ctx.out.line(vc_jwt), [record.id])
    ctx.out.success(
      `issued ${record.id} (${types.join(', ')}) to ${subject}, valid until ${record.valid_until}, status index ${record.index}`,
    )
    if (!runningIssuer(dir)) warnNotRunning(ctx, dir)
  })
}

type Change = 'revoke' | 'suspend' | 'reinstate'

/** `rwa dev issuer revoke|suspend|reinstate ID`: sets or clears its bit in a status list. */
export function change(what: Change) {
  return (id: string, options: DirOptions, command: Command) =>
    withContext(command, async (ctx) => {
      const dir = issuerDir(options)
      await existing(dir)
      const { updateIssuer, runningIssuer } = await store()
      const { issuer, record } = await updateIssuer(dir, async (issuer) => {
        const record = issuer!.find(id)
        if (!record) {
          throw new ExitError(
            EXIT.notFound,
            `the dev issuer in ${dir} issued no credential ${JSON.stringify(id)}`,
            `\`rwa dev issuer show${dirFlag(dir)}\` lists what it issued (an id such as vc-1, or the VC's urn:uuid: id)`,
          )
        }
        refuseConflict(what, issuer!.statusOf(record), record)
        if (what === 'revoke') issuer!.revoke(record.index)
        else if (what === 'suspend') issuer!.suspend(record.index)
        else issuer!.reinstate(record.index)
        return { issuer: issuer!, result: { issuer: issuer!, record } }
      })
      const purpose: StatusPurpose = what === 'revoke' ? 'revocation' : 'suspension'
      const state = issuer.statusOf(record)
      ctx.out.result({ ...record, state }, () => showCredentials(ctx, issuer, [record]), [record.id])
      const done = { revoke: 'revoked', suspend: 'suspended', reinstate: 'reinstated' }[what]
      ctx.out.success(
        `${done} ${record.id} (bit ${record.index} of the ${purpose} list); a server sees it when it next fetches the list (rwa: at most --issuer-status-max-age later)`,
      )
      if (!runningIssuer(dir)) warnNotRunning(ctx, dir)
    })
}

function refuseConflict(what: Change, state: string, record: IssuedRecord): void {
  const purpose: StatusPurpose = what === 'revoke' ? 'revocation' : 'suspension'
  const why = !record.status.includes(purpose)
    ? `it has no ${purpose} entry`
    : state === 'revoked'
      ? 'it is revoked (for good)'
      : what === 'suspend' && state === 'suspended'
        ? 'it is suspended already'
        : what === 'reinstate' && state !== 'suspended'
          ? 'it is not suspended'
          : undefined
  if (why) throw new ExitError(EXIT.conflict, `cannot ${what} ${record.id}: ${why}`)
}

/** `rwa dev issuer rotate-key [--form jwk|multikey]`: a new signing key; the old ones leave the document. */
export function rotateKey(options: DirOptions & { form?: string }, command: Command) {
  return withContext(command, async (ctx) => {
    if (options.form !== undefined && options.form !== 'jwk' && options.form !== 'multikey') {
      throw new ExitError(EXIT.usage, `--form must be jwk or multikey, got ${JSON.stringify(options.form)}`)
    }
    const form = options.form as 'jwk' | 'multikey' | undefined
    const dir = issuerDir(options)
    await existing(dir)
    const { updateIssuer, runningIssuer } = await store()
    const { issuer, retired } = await updateIssuer(dir, async (issuer) => {
      const retired = issuer!.keys.filter((k) => k.published).map((k) => k.kid)
      issuer!.rotateKey(form ? { form } : {})
      return { issuer: issuer!, result: { issuer: issuer!, retired } }
    })
    const key = issuer.currentKey
    ctx.out.result(
      { kid: key.kid, form: key.form, public_jwk: key.publicJwk, removed_from_document: retired },
      () =>
        ctx.out.record([
          ['kid', key.kid],
          ['form', key.form],
          ['removed', retired.join(', ')],
        ]),
      [key.kid],
    )
    ctx.out.success(
      `${key.kid} signs from now on; the document no longer lists ${retired.join(', ')}. A server retires those at its next resolution (\`rwa issuers refresh ID\`): what they signed before keeps verifying`,
    )
    if (!runningIssuer(dir)) warnNotRunning(ctx, dir)
  })
}
