import { mkdir, readFile, rename, writeFile } from 'node:fs/promises'
import { homedir } from 'node:os'
import { dirname, join } from 'node:path'
import type { Command } from 'commander'
import type { AuditEvent } from '../../contract/audit.js'
import { type LogCheckpoint, MAX_LOG_ENTRIES } from '../../contract/audit-log.js'
import type { Proof, TrustBundle } from '../../contract/rwa.js'
import {
  type AuditBundle,
  BUNDLE_FILES,
  BUNDLE_FORMAT,
  recoveryProofIds,
  type SeenCheckpoint,
  verifyAuditBundle,
} from '../../tlog/bundle.js'
import { ProofError, verifyConsistency } from '../../tlog/merkle.js'
import { NoteError, verifyCheckpoint } from '../../tlog/note.js'
import { type CliContext, withContext } from '../context.js'
import { EXIT, ExitError } from '../exit-error.js'
import { plural } from '../output.js'
import { doesNotHold, trustOf } from './verification.js'

/*
 * The verifiable log from the CLI (docs/governance.md, "The verifiable log"):
 * - `rwa log verify`: the server's latest checkpoint, signed by the pinned log key and consistent with
 *   the last one this machine saw for that server and organization (the witness state, kept under
 *   `$XDG_STATE_HOME/rwa/`); a shorter tree or an inconsistent root is exit 8, "log rewritten", and a
 *   failed verify leaves the state as it was.
 * - `rwa audit export --out DIR`: a self-contained bundle of JSON files.
 * - `rwa audit verify DIR`: all of it checked offline (src/tlog/bundle.ts).
 */

/** One log as a witness keeps it: the last checkpoint verified, and the key that signed it. */
interface WitnessEntry extends SeenCheckpoint {
  origin: string
  vkey: string
  checkpoint: string
}

interface WitnessState {
  logs: Record<string, WitnessEntry>
}

/** `$XDG_STATE_HOME/rwa/log-checkpoints.json`, else `~/.local/state/rwa/log-checkpoints.json`. */
export function witnessPath(env: NodeJS.ProcessEnv = process.env): string {
  const base =
    env.XDG_STATE_HOME && env.XDG_STATE_HOME !== '' ? env.XDG_STATE_HOME : join(homedir(), '.local', 'state')
  return join(base, 'rwa', 'log-checkpoints.json')
}

async function readWitness(): Promise<WitnessState> {
  let text: string
  try {
    text = await readFile(witnessPath(), 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { logs: {} }
    throw error
  }
  try {
    const parsed = JSON.parse(text) as WitnessState
    if (parsed && typeof parsed.logs === 'object' && parsed.logs !== null) return parsed
  } catch {}
  throw new ExitError(
    EXIT.unexpected,
    `${witnessPath()} is not the log state rwa writes`,
    'move it away to start over',
  )
}

/** Writes the state whole, through a temporary file renamed over it: never half a file. */
async function writeWitness(state: WitnessState): Promise<void> {
  const path = witnessPath()
  await mkdir(dirname(path), { recursive: true })
  const temporary = `${path}.${process.pid}.tmp`
  await writeFile(temporary, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 })
  await rename(temporary, path)
}

/*
 * A log is kept under its origin, `<public host>/console/audit/<org_id>`: the server (as it names
 * itself in what it signs, whatever URL this machine reaches it at) and the organization.
 */

const rewritten = (detail: string) =>
  doesNotHold(
    `log rewritten: ${detail}`,
    'the server no longer shows the log this machine verified before: keep both checkpoints as evidence',
  )

type LogVerifyOptions = { trust?: string; org?: string }

export function logVerify(options: LogVerifyOptions, command: Command) {
  return withContext(command, async (ctx) => {
    const client = await ctx.rwa()
    const query = options.org !== undefined ? { org_id: options.org } : {}
    const latest: LogCheckpoint = (await client.audit.getLogCheckpoint({ query })).data
    const state = await readWitness()
    const key = latest.origin
    const seen = state.logs[key]

    // The key to verify against: the one --trust pins, else the one pinned at this log's first verify.
    let vkey: string
    let pinnedBy: string
    if (options.trust !== undefined) {
      const { bundle, from } = await trustOf(ctx, { trust: options.trust })
      if (!bundle.log_key)
        throw new ExitError(
          EXIT.usage,
          `--trust ${from} has no log_key`,
          'save a current one with `rwa trust-bundle > trust.json`',
        )
      vkey = bundle.log_key.vkey
      pinnedBy = `--trust ${from}`
    } else if (seen) {
      vkey = seen.vkey
      pinnedBy = `the key pinned on ${seen.seen_at}`
    } else {
      vkey = latest.log_key.vkey
      pinnedBy = 'the server (first use: pinned from now on)'
    }
    let checkpoint: ReturnType<typeof verifyCheckpoint>
    try {
      checkpoint = verifyCheckpoint(latest.checkpoint, vkey)
    } catch (error) {
      if (!(error instanceof NoteError)) throw error
      throw doesNotHold(`checkpoint not verified with ${pinnedBy}: ${error.message}`)
    }

    let consistentWith: string | undefined
    if (seen) {
      const seenRoot = Buffer.from(seen.root_hash, 'base64')
      if (checkpoint.size < seen.tree_size) {
        throw rewritten(
          `the log has ${plural(checkpoint.size, 'entry', 'entries')}, fewer than the ${seen.tree_size} seen on ${seen.seen_at}`,
        )
      }
      if (checkpoint.size === seen.tree_size) {
        if (!checkpoint.root.equals(seenRoot)) {
          throw rewritten(
            `the root of its ${plural(checkpoint.size, 'entry', 'entries')} is not the one seen on ${seen.seen_at}`,
          )
        }
      } else if (seen.tree_size > 0) {
        const proof = (
          await client.audit.getLogConsistencyProof({
            query: { ...query, from: seen.tree_size, to: checkpoint.size },
          })
        ).data
        try {
          verifyConsistency(
            seen.tree_size,
            checkpoint.size,
            proof.proof.map((h) => Buffer.from(h, 'base64')),
            seenRoot,
            checkpoint.root,
          )
        } catch (error) {
          if (!(error instanceof ProofError)) throw error
          throw rewritten(
            `the log of ${plural(checkpoint.size, 'entry', 'entries')} does not extend the ${seen.tree_size} seen on ${seen.seen_at} (${error.message})`,
          )
        }
      }
      consistentWith = `consistent with the ${plural(seen.tree_size, 'entry', 'entries')} seen on ${seen.seen_at}`
    }

    const root_hash = checkpoint.root.toString('base64')
    state.logs[key] = {
      origin: checkpoint.origin,
      tree_size: checkpoint.size,
      root_hash,
      seen_at: new Date().toISOString(),
      vkey,
      checkpoint: latest.checkpoint,
    }
    await writeWitness(state)
    const result = {
      org_id: latest.org_id,
      origin: checkpoint.origin,
      tree_size: checkpoint.size,
      root_hash,
      key: pinnedBy,
      previous: seen ? { tree_size: seen.tree_size, root_hash: seen.root_hash, seen_at: seen.seen_at } : null,
    }
    ctx.out.result(result, () => {
      ctx.out.success(
        `log of ${latest.org_id}: ${plural(checkpoint.size, 'entry', 'entries')}, checkpoint signed by ${pinnedBy}`,
      )
      ctx.out.line(`root ${root_hash}`)
      ctx.out.line(consistentWith ?? 'first checkpoint seen for this server and organization: kept')
    })
  })
}

/** Every item of a paged list; `what` is the noun of one item (`credential`). */
async function allPages<T>(
  ctx: CliContext,
  what: string,
  page: (cursor: string | undefined) => Promise<{ items: T[]; next: string | null }>,
): Promise<T[]> {
  const items: T[] = []
  let cursor: string | undefined
  do {
    const next = await page(cursor)
    items.push(...next.items)
    cursor = next.next ?? undefined
    ctx.out.progress(`fetched ${plural(items.length, what)}…`)
  } while (cursor !== undefined)
  return items
}

/** How many times `rwa audit export` reads the records while the log grows, for a consistent snapshot. */
const SNAPSHOT_TRIES = 3

/**
 * The log's size, then every record, the transfers' proofs and the status lists the records name,
 * then the checkpoint: a consistent snapshot when its size is still `before`.
 */
async function readRecords(ctx: CliContext, client: Awaited<ReturnType<CliContext['rwa']>>) {
  const g = client.governance
  const before = (await client.audit.getLogCheckpoint({ query: {} })).data.tree_size
  const credentials = await allPages(ctx, 'credential', async (cursor) => {
    const { data } = await g.listCredentials({ query: { limit: 500, ...(cursor ? { cursor } : {}) } })
    return { items: data.credentials, next: data.next_cursor }
  })
  const attestations = await allPages(ctx, 'attestation', async (cursor) => {
    const { data } = await g.listAttestations({ query: { limit: 500, ...(cursor ? { cursor } : {}) } })
    return { items: data.attestations, next: data.next_cursor }
  })
  const transfers = await allPages(ctx, 'transfer', async (cursor) => {
    const { data } = await g.listTransfers({ query: { limit: 500, ...(cursor ? { cursor } : {}) } })
    return { items: data.transfers, next: data.next_cursor }
  })
  const proofs: Proof[] = []
  for (const transfer of transfers) {
    proofs.push((await g.getProof({ params: { id: transfer.proof_id } })).data)
    ctx.out.progress(`fetched ${proofs.length} of ${plural(transfers.length, 'proof')}…`)
  }
  // Read after the records: a record read as revoked has its bit set in them.
  const statusLists: Record<string, string> = {}
  for (const c of [...credentials, ...attestations]) {
    const url = c.credential_status?.statusListCredential
    if (url === undefined || url in statusLists) continue
    // Through this connection: the URL names the public host, which this machine may not reach.
    const list_id = url.slice(url.lastIndexOf('/') + 1)
    statusLists[url] = String((await g.getStatusList({ params: { list_id } })).data)
  }
  const checkpoint: LogCheckpoint = (await client.audit.getLogCheckpoint({ query: {} })).data
  return { before, credentials, attestations, transfers, proofs, statusLists, checkpoint }
}

type ExportOptions = { out: string }

export function auditExport(options: ExportOptions, command: Command) {
  return withContext(command, async (ctx) => {
    const client = await ctx.rwa()
    const g = client.governance
    try {
      // The records first, then the checkpoint: each record's event committed with it, so the
      // checkpoint read after covers every record exported. The log's size before them tells
      // `rwa audit verify` which revocations the records and status lists must show (those logged
      // before they were read) and which may have come while they were read. When the checkpoint read
      // after has the size read before, nothing was written in between: the bundle is a consistent
      // snapshot. Else it reads again, up to SNAPSHOT_TRIES times.
      let read = await readRecords(ctx, client)
      for (let tries = 1; read.before !== read.checkpoint.tree_size && tries < SNAPSHOT_TRIES; tries++) {
        ctx.out.progress(
          `the log grew from ${read.before} to ${plural(read.checkpoint.tree_size, 'entry', 'entries')} while the records were read: reading them again…`,
        )
        read = await readRecords(ctx, client)
      }
      const { before, credentials, attestations, transfers, proofs, statusLists, checkpoint } = read
      const snapshot = before === checkpoint.tree_size
      const trustBundle: TrustBundle = (await g.getTrustBundle()).data
      const entries: AuditEvent[] = []
      // Window by window, keeping what the server has: an event missing from its database is an entry
      // missing from the bundle, for `rwa audit verify` to name.
      for (let start = 0; start < checkpoint.tree_size; start += MAX_LOG_ENTRIES) {
        const end = Math.min(checkpoint.tree_size, start + MAX_LOG_ENTRIES)
        const page = (await client.audit.listLogEntries({ query: { start, end } })).data
        entries.push(...page.entries)
        ctx.out.progress(`fetched ${end} of ${plural(checkpoint.tree_size, 'log entry', 'log entries')}…`)
      }
      // Every recovery's proof (docs/governance.md, "The audit bundle"): the log's token.recovered entries
      // name them.
      const recoveries = recoveryProofIds(entries)
      for (const [i, proof_id] of recoveries.entries()) {
        proofs.push((await g.getProof({ params: { id: proof_id } })).data)
        ctx.out.progress(`fetched ${i + 1} of ${plural(recoveries.length, 'recovery proof')}…`)
      }
      const bundle: AuditBundle = {
        manifest: {
          format: BUNDLE_FORMAT,
          org_id: checkpoint.org_id,
          server: client.baseUrl,
          exported_at: new Date().toISOString(),
          tree_size_before_records: before,
        },
        checkpoint,
        entries,
        trustBundle,
        credentials,
        attestations,
        transfers,
        proofs,
        statusLists,
      }
      await mkdir(options.out, { recursive: true })
      for (const [name, file] of Object.entries(BUNDLE_FILES)) {
        await writeFile(
          join(options.out, file),
          `${JSON.stringify(bundle[name as keyof AuditBundle], null, 1)}\n`,
        )
      }
      ctx.out.progressDone()
      const summary = {
        out: options.out,
        org_id: checkpoint.org_id,
        tree_size: checkpoint.tree_size,
        credentials: credentials.length,
        attestations: attestations.length,
        transfers: transfers.length,
        proofs: proofs.length,
        status_lists: Object.keys(statusLists).length,
        snapshot,
      }
      ctx.out.result(summary, () =>
        ctx.out.success(
          `exported ${plural(checkpoint.tree_size, 'log entry', 'log entries')}, ${plural(credentials.length, 'credential')}, ${plural(attestations.length, 'attestation')}, ${plural(transfers.length, 'transfer')} and ${plural(proofs.length, 'proof')} of ${checkpoint.org_id} to ${options.out}`,
        ),
      )
      if (!snapshot)
        ctx.out.warn(
          `not a snapshot: the log grew while the records were read, ${SNAPSHOT_TRIES} times (from ${before} to ${plural(checkpoint.tree_size, 'entry', 'entries')} the last); a revocation logged meanwhile may not show in its record or list: export again (rwa audit verify refuses it unless --accept-window)`,
        )
    } finally {
      ctx.out.progressDone()
    }
  })
}

async function readBundle(dir: string): Promise<AuditBundle> {
  const read = async (file: string) => {
    let text: string
    try {
      text = await readFile(join(dir, file), 'utf8')
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
        throw doesNotHold(`the bundle ${dir} has no ${file}`, 'export one with `rwa audit export --out DIR`')
      }
      throw error
    }
    try {
      return JSON.parse(text) as unknown
    } catch {
      throw doesNotHold(`${join(dir, file)} is not JSON`)
    }
  }
  const bundle: Record<string, unknown> = {}
  for (const [name, file] of Object.entries(BUNDLE_FILES)) bundle[name] = await read(file)
  const manifest = bundle.manifest as AuditBundle['manifest'] | undefined
  if (manifest?.format !== BUNDLE_FORMAT) {
    throw doesNotHold(`${join(dir, BUNDLE_FILES.manifest)} is not an ${BUNDLE_FORMAT} manifest`)
  }
  return bundle as unknown as AuditBundle
}

export function auditVerify(
  dir: string,
  options: { trust?: string; acceptWindow?: boolean },
  command: Command,
) {
  return withContext(command, async (ctx) => {
    const bundle = await readBundle(dir)
    const pinned =
      options.trust !== undefined ? (await trustOf(ctx, { trust: options.trust })).bundle : undefined
    const seen = (await readWitness()).logs[bundle.checkpoint?.origin ?? '']
    let outcome: Awaited<ReturnType<typeof verifyAuditBundle>>
    try {
      outcome = await verifyAuditBundle(bundle, {
        ...(pinned ? { pinned } : {}),
        ...(seen ? { seen } : {}),
        progress: (done, total, what) => ctx.out.progress(`verifying ${what}: ${done} of ${total}…`),
      })
    } catch (error) {
      // A file of the wrong shape (a field missing, a list that is not one) is a bundle that does not hold.
      if (error instanceof TypeError) throw doesNotHold(`the bundle ${dir} is malformed: ${error.message}`)
      throw error
    } finally {
      ctx.out.progressDone()
    }
    // Not a snapshot: which revocations may be missing from their records rests on the manifest's
    // unsigned size, which an editor could lower to excuse a hidden one. Only accepted when asked.
    if (outcome.snapshot === false && !options.acceptWindow) {
      outcome.problems.push(
        `not a snapshot: the log grew from ${String(bundle.manifest.tree_size_before_records)} to ${plural(outcome.checkpoint?.size ?? 0, 'entry', 'entries')} while the export read the records, and that window is not signed; export again for a snapshot, or pass --accept-window to accept the revocations it names`,
      )
    }
    const result = {
      valid: outcome.problems.length === 0,
      org_id: bundle.manifest.org_id,
      tree_size: outcome.checkpoint?.size ?? null,
      snapshot: outcome.snapshot ?? null,
      problems: outcome.problems,
      notes: outcome.notes,
    }
    if (outcome.problems.length > 0) {
      if (ctx.out.json) ctx.out.result(result, () => {})
      throw doesNotHold(`the audit bundle ${dir} does not verify:\n  ${outcome.problems.join('\n  ')}`)
    }
    ctx.out.result(result, () => {
      ctx.out.success(`audit bundle ${dir} of ${bundle.manifest.org_id} verifies`)
      for (const note of outcome.notes) ctx.out.line(note)
    })
    if (outcome.snapshot === false)
      ctx.out.warn(
        `not a snapshot: the manifest says the log had ${plural(bundle.manifest.tree_size_before_records ?? 0, 'entry', 'entries')} when the export began reading the records, the checkpoint ${String(outcome.checkpoint?.size)}; revocations logged between were named, not refused`,
      )
    if (!pinned)
      ctx.out.warn(
        'log key not pinned: pass --trust trust.json, a trust bundle obtained apart from this export',
      )
  })
}
