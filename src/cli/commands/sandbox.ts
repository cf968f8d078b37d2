import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Command } from 'commander'
import { withContext } from '../context.js'
import type { DemoIssuerSeed } from '../demo-issuer.js'
import { EXIT, ExitError } from '../exit-error.js'
import type { CliContext } from '../context.js'

interface SandboxOptions {
  demo?: boolean
  db?: string
  host?: string
  port?: string
  logLevel?: string
  urlFile?: string
  masterKeyFile?: string
}

/** How old a provider's status list may be in a sandbox (unless RWA_ISSUER_STATUS_MAX_AGE says). */
export const SANDBOX_STATUS_MAX_AGE = '15s'

const ADMIN_KEY_LINE = /admin API key \(shown once\): (\S+)/

/**
 * `rwa sandbox [--demo]`: the embedded server on a temporary (or given) database, until SIGINT or
 * SIGTERM. Prints the URL, the admin key and the `export` line on stdout (one JSON object with --json),
 * last: nothing follows them on the terminal until it stops (its request log is at warn by default).
 */
export function sandbox(options: SandboxOptions, command: Command) {
  return withContext(command, async (ctx) => {
    // Loaded only here: `rwa --help` and every other command never load the server or SQLite.
    const { loadServerConfig } = await import('../../../server/platform/config.js')
    const { startServer } = await import('../../../server/start.js')
    const { startFailure } = await import('./server.js')

    // Like `rwa server start`: flags, then RWA_HOST, RWA_PORT and RWA_DB; the database is temporary
    // only when neither --db nor RWA_DB names one.
    const givenDb = options.db ?? (process.env.RWA_DB || undefined)
    const tempDir = givenDb ? undefined : mkdtempSync(join(tmpdir(), 'rwa-sandbox-'))
    const db = givenDb ?? join(tempDir!, 'rwa.db')
    const removeTemp = () => {
      if (tempDir) rmSync(tempDir, { recursive: true, force: true })
    }
    let config: ReturnType<typeof loadServerConfig>
    try {
      // The sandbox is always a local SQLite file, even where RWA_DATABASE_URL names a shared database.
      const { RWA_DATABASE_URL: _, RWA_REDIS_URL: __, ...env } = process.env
      // Its request log is quiet unless asked for (--log-level info, RWA_LOG_LEVEL): a line per request
      // on the same terminal would scroll away the `export` line people came for. Warnings still show.
      const logLevel = options.logLevel ?? (env.RWA_LOG_LEVEL ? undefined : 'warn')
      // The URL file is written below, once the demo is seeded and the lines are printed, not by the
      // server when it listens: a script waiting for it must find the sandbox ready for use.
      const { RWA_URL_FILE: ___, ...rest } = env
      // Webhooks to this machine (`rwa listen`, a local receiver) are what a sandbox is for.
      config = loadServerConfig(
        {
          host: options.host,
          port: options.port,
          db,
          logLevel,
          masterKeyFile: options.masterKeyFile,
          allowHttpWebhooks: 'true',
          allowHttpIssuers: 'true',
          // A provider's revocation shows in the decisions within seconds, not the hour a server waits
          // by default: long enough to watch a credential go from accepted to refused (the demo's).
          issuerStatusMaxAge: env.RWA_ISSUER_STATUS_MAX_AGE ? undefined : SANDBOX_STATUS_MAX_AGE,
        },
        rest,
      )
    } catch (error) {
      removeTemp()
      throw new ExitError(EXIT.usage, (error as Error).message, 'see `rwa sandbox --help`')
    }
    const urlFile = options.urlFile ?? (process.env.RWA_URL_FILE || undefined)
    const { prepareUrlFile, removeUrlFile, writeUrlFile } = await import(
      '../../../server/platform/url-file.js'
    )
    try {
      if (urlFile !== undefined) prepareUrlFile(urlFile)
    } catch (error) {
      removeTemp()
      throw startFailure(error, config, 'rwa sandbox')
    }

    // The demo's KYC provider (`rwa dev issuer`), in a directory beside the database: kept with a
    // given --db (its DID and keys must outlive the sandbox, as the issuer registered there does).
    const issuerDir = tempDir ? join(tempDir, 'dev-issuer') : `${db}.dev-issuer`
    let devIssuer: import('../../dev-issuer/store.js').ServedIssuer | undefined
    let adminKey: string | undefined
    const server = await startServer(config, (line) => {
      const match = ADMIN_KEY_LINE.exec(line)
      // The key goes to stdout below with the rest of the sandbox's data, not into the log.
      if (match) adminKey = match[1]
      else ctx.out.info(line)
    }).catch((error) => {
      removeTemp()
      throw startFailure(error, config, 'rwa sandbox')
    })
    adminKey ??= config.adminKey
    const stopped = new Promise<void>((resolve) => {
      const stop = (signal: string) => {
        ctx.out.info(`${signal} received, stopping the sandbox`)
        server
          .close()
          .finally(() => devIssuer?.close())
          .finally(() => {
            if (urlFile !== undefined) removeUrlFile(urlFile)
            removeTemp()
          })
          .then(() => resolve())
      }
      process.once('SIGINT', () => stop('SIGINT'))
      process.once('SIGTERM', () => stop('SIGTERM'))
    })

    let demo: (import('../demo.js').DemoSeed & { issuer: DemoIssuerSeed | null }) | undefined
    if (options.demo) {
      if (!adminKey) {
        await server.close()
        throw new ExitError(
          EXIT.usage,
          '--demo needs the admin key, which an existing database does not print again',
          'run --demo on a new database (omit --db and RWA_DB), or set RWA_ADMIN_KEY to its admin key',
        )
      }
      const { createClient } = await import('../../client/index.js')
      const { seedDemo } = await import('../demo.js')
      const { seedDemoIssuer, startDemoIssuer } = await import('../demo-issuer.js')
      const rwa = createClient({ baseUrl: server.url, apiKey: adminKey })
      try {
        ctx.out.info(
          'seeding the demo: jurisdictions US, SG, CH, trust, credentials, attestations, a token, two transfers…',
        )
        const seeded = await seedDemo(rwa)
        devIssuer = await startDemoIssuer(issuerDir)
        if (devIssuer.movedFrom) {
          ctx.out.warn(
            `the demo's KYC provider listens on another port than before: its DID is now ${devIssuer.issuer.did} (was ${devIssuer.movedFrom}), which the demo's issuer demo-kyc does not name`,
          )
        }
        ctx.out.info(`and a KYC provider on this machine (rwa dev issuer): ${devIssuer.issuer.did}…`)
        demo = { ...seeded, issuer: await seedDemoIssuer(rwa, devIssuer, issuerDir, seeded.token_id) }
      } catch (error) {
        // A sandbox that failed to seed would otherwise keep running with half a demo.
        await server
          .close()
          .finally(() => devIssuer?.close())
          .finally(removeTemp)
        throw error
      } finally {
        await rwa.close()
      }
    }

    // The demo's issuer directory goes in the export line: `rwa dev issuer revoke vc-1` then finds it.
    const exportLine = `export RWA_URL=${server.url}${adminKey ? ` RWA_API_KEY=${adminKey}` : ''}${
      demo?.issuer ? ` RWA_DEV_ISSUER_DIR=${issuerDir}` : ''
    }`
    ctx.out.result(
      {
        url: server.url,
        console_url: `${server.url}/console/ui/`,
        admin_key: adminKey ?? null,
        db,
        temporary: tempDir !== undefined,
        demo: demo ?? null,
      },
      () => {
        ctx.out.line(`rwa sandbox running at ${server.url}`)
        ctx.out.line(`admin API key: ${adminKey ?? '(printed when this database was created)'}`)
        // The console's URL alone: one signs in on the page (docs/console.md); a key never goes in a URL.
        ctx.out.line(`console: ${server.url}/console/ui/ (sign in with an API key, or run \`rwa ui\`)`)
        ctx.out.line(`database: ${db}${tempDir ? ' (temporary, deleted on exit)' : ''}`)
        if (demo?.seeded) {
          ctx.out.line(
            `demo: token ${demo.token_id}; transfer ${demo.approved_transfer_id} approved, ${demo.rejected_transfer_id} rejected`,
          )
        } else if (demo) ctx.out.line(`demo: already seeded (token ${demo.token_id})`)
        if (demo?.issuer) demoIssuerLines(ctx, demo.issuer)
        ctx.out.line('press Ctrl-C to stop; use it from another shell:\n')
        ctx.out.line(`  ${exportLine}`)
        ctx.out.line('  rwa transfers list\n')
        if (demo?.issuer) demoIssuerNext(ctx, demo.issuer, demo.token_id, config.issuerStatusMaxAge)
      },
    )
    if (urlFile !== undefined) writeUrlFile(urlFile, server.url)
    await stopped
  })
}

/** What the demo's provider did: the issuer, and the transfer approved on its credential. */
function demoIssuerLines(ctx: CliContext, seed: DemoIssuerSeed): void {
  ctx.out.line(
    `KYC provider: ${seed.did} (rwa dev issuer; trusted issuer ${seed.issuer_id}, kyc in US and SG)`,
  )
  if (seed.seeded) {
    ctx.out.line(
      `  issued ${seed.credential_id} to did:web:acme:erin, submitted as ${seed.attestation_id}; transfer ${seed.transfer_id} ${seed.transfer_status}`,
    )
    if (seed.kyc_reason) ctx.out.line(`  kyc: ${seed.kyc_reason}`)
  }
}

/** The commands to try next with the provider: revoke at it, and see the next transfer refused. */
function demoIssuerNext(ctx: CliContext, seed: DemoIssuerSeed, token: string, maxAge: string): void {
  const transfer = `rwa transfers request --token-id ${token} --from US --to SG --recipient-did did:web:acme:erin --amount 10`
  ctx.out.line('  then, with the KYC provider:\n')
  ctx.out.line('  rwa dev issuer show')
  ctx.out.line(`  rwa dev issuer revoke ${seed.credential_id ?? 'vc-1'}`)
  const unit = { s: 1, m: 60, h: 3600, d: 86_400 }[maxAge.slice(-1)] ?? 1
  ctx.out.line(
    `  sleep ${Number.parseInt(maxAge, 10) * unit}    # the sandbox's --issuer-status-max-age (${maxAge})`,
  )
  ctx.out.line(`  ${transfer}    # rejected: kyc revoked\n`)
}
