import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Command } from 'commander'
import { ApiProblemError } from '../../client/errors.js'
import type { AuditEvent } from '../../contract/audit.js'
import { type LogCheckpoint, MAX_LOG_ENTRIES } from '../../contract/audit-log.js'
import type { Proof, TransferDetail, TransferSummary, TrustBundle } from '../../contract/rwa.js'
import { type AuditBundle, BUNDLE_FILES, BUNDLE_FORMAT, recoveryProofIds } from '../../tlog/bundle.js'
import { statusEntriesOf } from '../../proof/status-list.js'
import { type CliContext, withContext } from '../context.js'
import { plural } from '../output.js'

/*
 * `rwa audit export --out DIR`: a self-contained bundle of JSON files (docs/governance.md, "The audit
 * bundle"), for `rwa audit verify` (./audit-log.ts) to check offline.
 */

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

type Client = Awaited<ReturnType<CliContext['rwa']>>

/** How many times `rwa audit export` reads the records while the log grows, for a consistent snapshot. */
const SNAPSHOT_TRIES = 3

/**
 * A checkpoint, then every record, the transfers' proofs and the status lists the records name, then
 * a checkpoint again: a consistent snapshot when both are one size.
 */
async function readRecords(ctx: CliContext, client: Client) {
  const g = client.governance
  const before: LogCheckpoint = (await client.audit.getLogCheckpoint({ query: {} })).data
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
    // A trusted issuer's attestation names its issuer's lists, which this server does not serve.
    if ('source' in c && c.source === 'external') continue
    const url = revocationListOf(c)
    if (url === undefined || url in statusLists) continue
    // Through this connection: the URL names the public host, which this machine may not reach.
    const list_id = url.slice(url.lastIndexOf('/') + 1)
    statusLists[url] = String((await g.getStatusList({ params: { list_id } })).data)
  }
  const checkpoint: LogCheckpoint = (await client.audit.getLogCheckpoint({ query: {} })).data
  return { before, credentials, attestations, transfers, proofs, statusLists, checkpoint }
}

/** A transfer's detail as the transfers list shows it (a summary): what the bundle keeps of each. */
function summaryOf(detail: TransferDetail): TransferSummary {
  const { source_requirements, target_requirements, all_satisfied } = detail.compliance_details
  return {
    transfer_id: detail.transfer_id,
    status: detail.status,
    proof_id: detail.proof_id,
    compliance_details: { source_requirements, target_requirements, all_satisfied },
    token_id: detail.token_id,
    from_jurisdiction: detail.from_jurisdiction,
    to_jurisdiction: detail.to_jurisdiction,
    sender_did: detail.sender_did,
    recipient_did: detail.recipient_did,
    amount: detail.amount,
    created_at: detail.created_at,
  }
}

/** A credential or attestation record, as the bundle keeps it. */
type VcRecord = { status?: string; credential_status?: unknown }

/**
 * The revocation list a record's `credentialStatus` names (its one entry, or its `revocation` entry
 * beside a `suspension` one): what `rwa audit verify` checks. Suspension lists are not kept in a bundle.
 */
function revocationListOf(record: VcRecord): string | undefined {
  const entry = statusEntriesOf(record.credential_status).find((e) => e?.statusPurpose === 'revocation')
  return typeof entry?.statusListCredential === 'string' ? entry.statusListCredential : undefined
}

/**
 * The records the entries logged while the lists were read (the window, between the two checkpoints)
 * name, read one by one now that the checkpoint after covers those entries: each one the lists missed
 * (made meanwhile), with a transfer's proof; each one a window entry revoked that its record read as
 * active; then every status list those name, again. So every record a log entry names is in the
 * bundle, and every revocation in the log shows in its record and bit, which `rwa audit verify`
 * requires, window or not (docs/verification.md, "The window of an audit bundle"). One the server no
 * longer has stays missing, for `rwa audit verify` to name. Changes `read`'s lists in place; answers
 * whether it read anything (then the caller reads the checkpoint again, which must cover these reads).
 */
async function readWindowRecords(
  ctx: CliContext,
  client: Client,
  window: AuditEvent[],
  read: Awaited<ReturnType<typeof readRecords>>,
): Promise<boolean> {
  const g = client.governance
  const credentials = new Map(read.credentials.map((c, i) => [c.credential_id, i]))
  const attestations = new Map(read.attestations.map((a, i) => [a.attestation_id, i]))
  const transfers = new Set(read.transfers.map((t) => t.transfer_id))
  const vcs: VcRecord[] = []
  let count = 0
  for (const entry of window) {
    const { type, id } = entry.target
    const revoked = entry.action.endsWith('.revoked')
    try {
      if (type === 'credential') {
        const at = credentials.get(id)
        if (at !== undefined && (!revoked || read.credentials[at]?.status === 'revoked')) continue
        const credential = (await g.getCredential({ params: { id } })).data
        if (at === undefined) credentials.set(id, read.credentials.push(credential) - 1)
        else read.credentials[at] = credential
        vcs.push(credential)
      } else if (type === 'attestation') {
        const at = attestations.get(id)
        if (at !== undefined && (!revoked || read.attestations[at]?.status === 'revoked')) continue
        const attestation = (await g.getAttestation({ params: { id } })).data
        if (at === undefined) attestations.set(id, read.attestations.push(attestation) - 1)
        else read.attestations[at] = attestation
        // A trusted issuer's attestation names its issuer's lists, which this server does not serve.
        if (attestation.source !== 'external') vcs.push(attestation)
      } else if (type === 'transfer' && !transfers.has(id)) {
        const detail = (await g.getTransfer({ params: { id } })).data
        read.transfers.push(summaryOf(detail))
        read.proofs.push(detail.proof)
        transfers.add(id)
      } else continue
      count++
    } catch (error) {
      if (!(error instanceof ApiProblemError) || error.status !== 404) throw error
    }
    ctx.out.progress(`read ${plural(count, 'record')} the log changed while the lists were read…`)
  }
  // Read after the records, as the first time: a record read as revoked has its bit set in them.
  const lists = new Set(vcs.map(revocationListOf))
  for (const url of lists) {
    if (url === undefined) continue
    const list_id = url.slice(url.lastIndexOf('/') + 1)
    read.statusLists[url] = String((await g.getStatusList({ params: { list_id } })).data)
  }
  return count > 0
}

/** The log's entries from `entries.length` to `size`, appended to `entries`, 1,000 at a time. */
async function readEntries(ctx: CliContext, client: Client, entries: AuditEvent[], size: number) {
  // Window by window, keeping what the server has: an event missing from its database is an entry
  // missing from the bundle, for `rwa audit verify` to name.
  for (let start = entries.length; start < size; start += MAX_LOG_ENTRIES) {
    const end = Math.min(size, start + MAX_LOG_ENTRIES)
    const page = (await client.audit.listLogEntries({ query: { start, end } })).data
    entries.push(...page.entries)
    ctx.out.progress(`fetched ${end} of ${plural(size, 'log entry', 'log entries')}…`)
  }
}

type ExportOptions = { out: string }

export function auditExport(options: ExportOptions, command: Command) {
  return withContext(command, async (ctx) => {
    const client = await ctx.rwa()
    const g = client.governance
    try {
      // A signed checkpoint, the records, then another: each record's event committed with it, so the
      // checkpoint read after covers every record exported, and every event in the one read before was
      // committed before any record was read, so the records and lists show it. Both signed, they tell
      // `rwa audit verify` which entries came while the records were read (the window), and no one can
      // move that line. When both are one size, nothing was written in between: the bundle is a
      // consistent snapshot. Else it reads again, up to SNAPSHOT_TRIES times, and then reads the
      // records the window changed one by one (readWindowRecords).
      let read = await readRecords(ctx, client)
      for (
        let tries = 1;
        read.before.tree_size !== read.checkpoint.tree_size && tries < SNAPSHOT_TRIES;
        tries++
      ) {
        ctx.out.progress(
          `the log grew from ${read.before.tree_size} to ${plural(read.checkpoint.tree_size, 'entry', 'entries')} while the records were read: reading them again…`,
        )
        read = await readRecords(ctx, client)
      }
      const { before, credentials, attestations, transfers, proofs, statusLists } = read
      let checkpoint = read.checkpoint
      const entries: AuditEvent[] = []
      await readEntries(ctx, client, entries, checkpoint.tree_size)
      // The records the window changed, read after the checkpoint that covers it; then the checkpoint
      // again, which must cover those reads: until it shows the log as it was (SNAPSHOT_TRIES times).
      for (let tries = 1; ; tries++) {
        const reread = await readWindowRecords(ctx, client, entries.slice(before.tree_size), read)
        if (!reread || tries >= SNAPSHOT_TRIES) break
        const next: LogCheckpoint = (await client.audit.getLogCheckpoint({ query: {} })).data
        if (next.tree_size === checkpoint.tree_size) break
        checkpoint = next
        await readEntries(ctx, client, entries, checkpoint.tree_size)
      }
      const snapshot = before.tree_size === checkpoint.tree_size
      const trustBundle: TrustBundle = (await g.getTrustBundle()).data
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
        },
        // The signed notes alone: what travels beside them is the server's word, which verifies nothing.
        checkpoints: { before: before.checkpoint, after: checkpoint.checkpoint },
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
          `not a snapshot: the log grew while the records were read, ${SNAPSHOT_TRIES} times (from ${before.tree_size} to ${plural(checkpoint.tree_size, 'entry', 'entries')} the last); a revocation logged meanwhile may not show in its status list: export again (rwa audit verify refuses it unless --accept-window)`,
        )
    } finally {
      ctx.out.progressDone()
    }
  })
}
