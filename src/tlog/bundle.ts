import type { AuditEvent } from '../contract/audit.js'
import type { Proof, TrustBundle } from '../contract/rwa.js'
import {
  type StatusPosition,
  statusEntryOf,
  statusInList,
  type VerifiedStatusList,
  verifyStatusList,
} from '../proof/status-list.js'
import { verifyExternalAttestation } from '../proof/external-attestation.js'
import { untrustedIssuer } from '../proof/trust.js'
import { transferMismatch, verifyProofTrusted } from '../proof/verify.js'
import { type CredentialVerification, verifyCredential } from '../proof/verify-credential.js'
import { plural } from '../text/plural.js'
import { eventLeafHash } from './leaf.js'
import { appendToFrontier, type Hash, rootOfFrontier } from './merkle.js'
import { type Checkpoint, NoteError, verifyCheckpoint } from './note.js'
import { orgOfOrigin } from './origin.js'

/*
 * An audit bundle (`rwa audit export --out DIR`, docs/governance.md "The audit bundle") and its offline
 * verification: the two checkpoints' signatures by the log key, the entries rebuilding both roots,
 * every record's entry, every signature (proofs, credentials' and attestations' VC-JWTs, status lists)
 * by a key of the trust bundle, each record equal to what was signed, and each revocation the same in
 * the record, its status list and the log. What decides is signed: the log's origin, organization and
 * sizes come from the checkpoints, never from the manifest. Pure: the CLI reads the files and prints
 * the outcome.
 */

/** The files of a bundle, by name, and what each holds. */
export const BUNDLE_FILES = {
  manifest: 'manifest.json',
  checkpoints: 'checkpoints.json',
  entries: 'entries.json',
  trustBundle: 'trust-bundle.json',
  credentials: 'credentials.json',
  attestations: 'attestations.json',
  transfers: 'transfers.json',
  proofs: 'proofs.json',
  statusLists: 'status-lists.json',
} as const

export const BUNDLE_FORMAT = 'rwa-audit-bundle/2'

/**
 * The bundles of an earlier export: one checkpoint (`checkpoint.json`, the `/log/checkpoint` answer),
 * and the size before the records in the manifest, unsigned. Read as a snapshot at that checkpoint,
 * from its signed note alone.
 */
export const BUNDLE_FORMAT_1 = 'rwa-audit-bundle/1'

export interface AuditBundle {
  /** For people: none of it is signed, so none of it decides anything. */
  manifest: {
    format: string
    org_id: string
    server: string
    exported_at: string
  }
  /**
   * The log's checkpoints (C2SP signed notes), read before the export read the records and after.
   * Every event in the first was committed before any record was read, so the records and lists show
   * it; the entries between the two came while they were read. Equal when nothing was logged
   * meanwhile: a snapshot.
   */
  checkpoints: { before: string; after: string }
  entries: AuditEvent[]
  trustBundle: TrustBundle
  credentials: Array<{ credential_id: string } & Record<string, unknown>>
  attestations: Array<{ attestation_id: string } & Record<string, unknown>>
  transfers: Array<{ transfer_id: string; proof_id: string } & Record<string, unknown>>
  proofs: Proof[]
  /** Status list URL → its VC-JWT, as served. */
  statusLists: Record<string, string>
}

/** The proof a `token.recovered` entry names (`changes.after.proof_id`), if it names one. */
export function recoveryProofOf(entry: AuditEvent): string | undefined {
  if (entry.action !== 'token.recovered') return undefined
  const proofId = (entry.changes?.after as Record<string, unknown> | null | undefined)?.proof_id
  return typeof proofId === 'string' ? proofId : undefined
}

/** The proofs the log's recoveries name, in log order: the ones an export saves beside the transfers'. */
export function recoveryProofIds(entries: AuditEvent[]): string[] {
  return entries.map(recoveryProofOf).filter((id): id is string => id !== undefined)
}

/** A checkpoint a witness kept for this log (`rwa log verify`'s state). */
export interface SeenCheckpoint {
  tree_size: number
  root_hash: string
  seen_at: string
}

export interface BundleVerification {
  /** Everything that does not hold; empty when the bundle verifies. */
  problems: string[]
  /** What holds, and what was not checked. */
  notes: string[]
  /** The checkpoint after the records, once it verified: the log the bundle is of. */
  checkpoint?: Checkpoint
  /** The checkpoint before the records, once it verified. */
  before?: Checkpoint
  /** The organization whose log it is, by the signed origin. */
  orgId?: string
  /** Whether the log stood still while the export read the records (both checkpoints one size). */
  snapshot?: boolean
  /** The entries logged while the export read the records (between the checkpoints), each named. */
  window?: string[]
}

/**
 * The root of the first `size` leaves of `entries` for each size in `at` (the whole included only if
 * asked), in one pass, reporting progress every 1,000.
 */
function rootsOf(
  entries: AuditEvent[],
  at: number[],
  progress: (done: number, total: number, what: string) => void,
): Map<number, Hash> {
  const roots = new Map<number, Hash>()
  let frontier: Hash[] = []
  const keep = (size: number) => {
    if (at.includes(size)) roots.set(size, rootOfFrontier(frontier))
  }
  entries.forEach((entry, i) => {
    keep(i)
    frontier = appendToFrontier(i, frontier, eventLeafHash(entry)).frontier
    if ((i + 1) % 1000 === 0) progress(i + 1, entries.length, 'log entries')
  })
  keep(entries.length)
  return roots
}

/**
 * Verifies a bundle offline. `pinned` is a trust bundle obtained apart from the export (`--trust`):
 * its log key, proof keys and issuers are the ones signatures must be by; without it the bundle's own
 * are used and the outcome says "log key not pinned". `seenFor(origin)` is the last checkpoint a
 * witness kept of the log the checkpoints sign: a smaller tree in the bundle, or entries that do not
 * rebuild its root, is a rewritten log.
 */
export async function verifyAuditBundle(
  bundle: AuditBundle,
  options: {
    pinned?: TrustBundle
    seenFor?: (origin: string) => SeenCheckpoint | undefined
    /** Called every 1,000 entries hashed and records verified: what, how many done, of how many. */
    progress?: (done: number, total: number, what: string) => void
  } = {},
): Promise<BundleVerification> {
  const problems: string[] = []
  const notes: string[] = []
  const trust = options.pinned ?? bundle.trustBundle
  const vkey = trust.log_key?.vkey
  if (!options.pinned)
    notes.push(
      "log key not pinned: checked against the bundle's own trust bundle, its log key, proof keys and issuers (pass --trust)",
    )
  if (!vkey) return { problems: ['the trust bundle has no log key'], notes }

  // Both checkpoints signed by the log key, under its name: one log, as the checkpoints sign it.
  const signed: Checkpoint[] = []
  for (const [when, note] of [
    ['before', bundle.checkpoints.before],
    ['after', bundle.checkpoints.after],
  ] as const) {
    try {
      signed.push(verifyCheckpoint(note, vkey))
    } catch (error) {
      if (!(error instanceof NoteError)) throw error
      problems.push(`the checkpoint ${when} the records: ${error.message}`)
    }
  }
  const [before, checkpoint] = signed
  if (!before || !checkpoint) return { problems, notes }
  if (before.size > checkpoint.size)
    return {
      problems: [
        `the checkpoint before the records covers ${plural(before.size, 'entry', 'entries')}, the one after ${checkpoint.size}: not taken in that order`,
      ],
      notes,
    }
  const orgId = orgOfOrigin(checkpoint.origin)
  if (orgId === undefined)
    return { problems: [`the checkpoints' origin ${checkpoint.origin} names no organization's log`], notes }
  if (bundle.manifest.org_id !== orgId)
    problems.push(
      `the manifest names organization ${bundle.manifest.org_id}, the signed checkpoints ${orgId}'s log`,
    )

  // The entries: exactly the checkpoint's tree, each at its position, rebuilding both roots.
  const entries = bundle.entries
  if (entries.length !== checkpoint.size) {
    problems.push(
      `the checkpoint covers ${plural(checkpoint.size, 'entry', 'entries')} and the bundle has ${entries.length}: ${entries.length < checkpoint.size ? 'entries were deleted' : 'entries were added'}`,
    )
  }
  const misplaced = entries.findIndex((e, i) => e.log_index !== i)
  if (misplaced >= 0) {
    problems.push(
      `entry ${misplaced} has log_index ${String(entries[misplaced]?.log_index)}: entries were deleted or reordered`,
    )
  }
  const foreign = entries.find((e) => e.org_id !== orgId)
  if (foreign)
    problems.push(`entry ${String(foreign.log_index)} is organization ${foreign.org_id}'s, not ${orgId}'s`)
  const seen = options.seenFor?.(checkpoint.origin)
  const roots = rootsOf(
    entries,
    [entries.length, before.size, ...(seen && seen.tree_size <= entries.length ? [seen.tree_size] : [])],
    options.progress ?? (() => {}),
  )
  if (entries.length === checkpoint.size && !roots.get(entries.length)?.equals(checkpoint.root)) {
    problems.push(
      "the entries do not rebuild the checkpoint's root: an entry was edited, deleted or reordered",
    )
  } else if (entries.length === checkpoint.size && !roots.get(before.size)?.equals(before.root)) {
    problems.push(
      `the first ${plural(before.size, 'entry', 'entries')} do not rebuild the root of the checkpoint taken before the records: not the same log`,
    )
  } else if (problems.length === 0) {
    notes.push(
      `${plural(entries.length, 'entry', 'entries')} ${entries.length === 1 ? 'rebuilds' : 'rebuild'} the checkpoint's root ${checkpoint.root.toString('base64')}`,
    )
  }

  if (seen) {
    const earlier = roots.get(seen.tree_size)
    if (seen.tree_size > checkpoint.size) {
      problems.push(
        `log rewritten: the checkpoint has ${plural(checkpoint.size, 'entry', 'entries')}, fewer than the ${seen.tree_size} seen at ${seen.seen_at}`,
      )
    } else if (!earlier || earlier.toString('base64') !== seen.root_hash) {
      problems.push(
        `log rewritten: the first ${plural(seen.tree_size, 'entry', 'entries')} ${seen.tree_size === 1 ? 'does' : 'do'} not rebuild the root seen at ${seen.seen_at}`,
      )
    } else
      notes.push(
        `consistent with the checkpoint of ${plural(seen.tree_size, 'entry', 'entries')} seen at ${seen.seen_at}`,
      )
  }

  // Every entry about a credential, attestation or transfer has its record in the bundle: one deleted
  // from the database (or the bundle) leaves its entries behind in the signed log. Those logged while
  // the export read the lists (between the checkpoints) too: the export reads the records they name
  // that the lists missed, one by one, after the checkpoint that covers them. Else an older genuine
  // checkpoint put as the one before would open a window over any records, and excuse their deletion
  // (docs/verification.md, "The window of an audit bundle").
  const bundled = new Set([
    ...bundle.credentials.map((c) => `credential ${c.credential_id}`),
    ...bundle.attestations.map((a) => `attestation ${a.attestation_id}`),
    ...bundle.transfers.map((t) => `transfer ${t.transfer_id}`),
  ])
  const unbundled = new Set<string>()
  for (const entry of entries) {
    const record = `${entry.target.type} ${entry.target.id}`
    if (!RECORD_TYPES.has(entry.target.type) || bundled.has(record) || unbundled.has(record)) continue
    unbundled.add(record)
    problems.push(
      `${record}: its entry ${String(entry.log_index)} (${entry.action}) is in the log, its record is not in the bundle (deleted)`,
    )
  }

  // Every record has its entry: the event that created it, in this log.
  const byTarget = new Map<string, AuditEvent[]>()
  for (const entry of entries) {
    const list = byTarget.get(entry.target.id)
    if (list) list.push(entry)
    else byTarget.set(entry.target.id, [entry])
  }
  const entryOf = (type: string, id: string) => byTarget.get(id)?.find((e) => e.target.type === type)
  for (const c of bundle.credentials) {
    if (!entryOf('credential', c.credential_id))
      problems.push(`credential ${c.credential_id} has no entry in the log`)
  }
  for (const a of bundle.attestations) {
    if (!entryOf('attestation', a.attestation_id))
      problems.push(`attestation ${a.attestation_id} has no entry in the log`)
  }
  for (const t of bundle.transfers) {
    const entry = entryOf('transfer', t.transfer_id)
    const after = (entry?.changes?.after ?? {}) as Record<string, unknown>
    if (!entry) problems.push(`transfer ${t.transfer_id} has no entry in the log`)
    else if (after.proof_id !== t.proof_id) {
      problems.push(
        `transfer ${t.transfer_id}'s entry names proof ${String(after.proof_id)}, not ${t.proof_id}`,
      )
    }
  }
  // Each recovery's token.recovered entry, by the proof it names.
  const recoveryEntries = new Map<string, AuditEvent>()
  for (const entry of entries) {
    const proofId = recoveryProofOf(entry)
    if (proofId !== undefined && !recoveryEntries.has(proofId)) recoveryEntries.set(proofId, entry)
  }
  let recoveryProofs = 0
  // A check met by a trusted issuer's attestation names its VC's digest: the attestation is here.
  const attestationsById = new Map(bundle.attestations.map((a) => [a.attestation_id, a]))
  for (const proof of bundle.proofs) {
    const verification = await verifyProofTrusted(proof, trust, { attestations: attestationsById })
    if (!verification.valid) problems.push(`proof ${proof.proof_id}: ${verification.reason}`)
    if (proof.transfer_id === undefined) {
      if (proof.recovery === undefined) continue
      // A recovery's proof: its token.recovered entry names it, and its log_index is that entry.
      recoveryProofs++
      const entry = recoveryEntries.get(proof.proof_id)
      if (!entry) {
        problems.push(`recovery proof ${proof.proof_id} has no token.recovered entry in the log naming it`)
        continue
      }
      if (entry.target.type !== 'token' || entry.target.id !== proof.token_id)
        problems.push(
          `proof ${proof.proof_id} recovers token ${proof.token_id}, its entry ${String(entry.log_index)} ${entry.target.type} ${entry.target.id}`,
        )
      if (proof.log_index !== undefined && proof.log_index !== entry.log_index)
        problems.push(
          `proof ${proof.proof_id} names log_index ${proof.log_index}, which is not a token.recovered entry naming it (its entry is ${String(entry.log_index)})`,
        )
      continue
    }
    const entry = entryOf('transfer', proof.transfer_id)
    if (!entry)
      problems.push(`proof ${proof.proof_id}'s transfer ${proof.transfer_id} has no entry in the log`)
    else if (proof.log_index !== undefined && proof.log_index !== entry.log_index) {
      problems.push(
        `proof ${proof.proof_id} names log_index ${proof.log_index}, its transfer's entry is ${entry.log_index}`,
      )
    }
  }
  // Every recovery the log records has its proof here (docs/governance.md, "The audit bundle": the bundle
  // holds every proof).
  const proofIds = new Set(bundle.proofs.map((p) => p.proof_id))
  for (const [proofId, entry] of recoveryEntries) {
    if (!proofIds.has(proofId))
      problems.push(
        `entry ${String(entry.log_index)} (token.recovered) names proof ${proofId}, which is not in the bundle`,
      )
  }
  if (problems.length === 0) {
    notes.push(
      `${plural(recoveryProofs, 'recovery proof')}, each named by its token.recovered entry; every token.recovered entry's proof in the bundle`,
    )
    notes.push(
      `every record has its entry: ${plural(bundle.credentials.length, 'credential')}, ${plural(bundle.attestations.length, 'attestation')}, ${plural(bundle.transfers.length, 'transfer')}, ${plural(bundle.proofs.length, 'proof')} (signatures verified)`,
    )
  }

  // Each transfer as its proof signed it.
  const proofsById = new Map(bundle.proofs.map((p) => [p.proof_id, p]))
  for (const t of bundle.transfers) {
    const proof = proofsById.get(t.proof_id)
    if (!proof) problems.push(`transfer ${t.transfer_id}: its proof ${t.proof_id} is not in the bundle`)
    else {
      const mismatch = transferMismatch(t, proof, { summary: true })
      if (mismatch) problems.push(`transfer ${t.transfer_id}: ${mismatch}`)
    }
  }

  // The window: what was logged while the export read the records. Each entry is named, and what it
  // may not show yet (a record made since, a revocation its record or bit do not show) is said.
  const snapshot = before.size === checkpoint.size
  const records = new Map<string, Record<string, unknown>>([
    ...bundle.credentials.map((c): [string, Record<string, unknown>] => [`credential ${c.credential_id}`, c]),
    ...bundle.attestations.map((a): [string, Record<string, unknown>] => [
      `attestation ${a.attestation_id}`,
      a,
    ]),
    ...bundle.transfers.map((t): [string, Record<string, unknown>] => [`transfer ${t.transfer_id}`, t]),
  ])
  const window = entries.slice(before.size, checkpoint.size).map((entry) => {
    const target = `${entry.target.type} ${entry.target.id}`
    const record = records.get(target)
    const shows = !RECORD_TYPES.has(entry.target.type)
      ? ''
      : !record
        ? ': its record is not in the bundle (deleted)'
        : entry.action.endsWith('.revoked')
          ? record.status === 'revoked'
            ? ': its status bit may not show it yet'
            : ': its record does not show it'
          : ''
    return `entry ${String(entry.log_index)} (${entry.action}) on ${target}${shows}`
  })
  if (snapshot)
    notes.push(
      `a consistent snapshot: the log stood still at ${plural(checkpoint.size, 'entry', 'entries')} while the export read the records (both checkpoints signed)`,
    )
  else {
    // When they were logged (signed, as the entries are): an export reads for seconds, not weeks.
    const span = `logged from ${String(entries[before.size]?.at)} to ${String(entries[checkpoint.size - 1]?.at)}`
    notes.push(
      `NOT A SNAPSHOT: the log grew from ${before.size} to ${plural(checkpoint.size, 'entry', 'entries')} while the export read the records (both checkpoints signed; the ${plural(window.length, 'entry', 'entries')} between ${span}); each named: ${window.join('; ')}`,
    )
  }

  const problemsBefore = problems.length
  await verifyVcs(bundle, trust, entries, before.size, options.progress ?? (() => {}), problems, notes)
  if (problems.length === problemsBefore)
    notes.push(
      bundle.transfers.length === 1
        ? '1 transfer equals the facts its proof signed'
        : `${bundle.transfers.length} transfers equal the facts their proofs signed`,
    )
  return { problems, notes, checkpoint, before, orgId, snapshot, window }
}

type VcKind = 'credential' | 'attestation'

/** The kinds of record an audit bundle holds every one of (their log entries name them). */
const RECORD_TYPES = new Set(['credential', 'attestation', 'transfer'])

const named = (kind: VcKind) => (kind === 'credential' ? 'a credential' : 'an attestation')

/** How many VC-JWTs are verified at once. */
const VERIFY_AT_ONCE = 256

/**
 * The credentials and attestations, and the status lists (docs/governance.md, "The audit bundle"), judged as
 * of the export (`manifest.exported_at`): each VC-JWT signed by the trust bundle's issuer of its
 * jurisdiction, its record equal to what was signed; each status list signed by an issuer of the trust bundle
 * within the 24 hours before the export; each VC's bit in the list it names, which must be in the bundle. A
 * revocation shows the same in the record, the bit and the log (its `<kind>.revoked` entry), except
 * that the bit of one the log recorded at `windowFrom` or after (while the export read the records) may
 * not show it yet: the window's note names it. Adds to `problems` and `notes`.
 */
async function verifyVcs(
  bundle: AuditBundle,
  trust: TrustBundle,
  entries: AuditEvent[],
  windowFrom: number,
  progress: (done: number, total: number, what: string) => void,
  problems: string[],
  notes: string[],
): Promise<void> {
  const exportedAt = new Date(bundle.manifest.exported_at)
  if (Number.isNaN(exportedAt.getTime())) {
    problems.push(`the manifest's exported_at ${JSON.stringify(bundle.manifest.exported_at)} is not a time`)
    return
  }
  // Each list verified once, however many VCs name it.
  const lists = new Map<string, VerifiedStatusList | { reason: string }>()
  for (const [url, jwt] of Object.entries(bundle.statusLists)) {
    let list = await verifyStatusList(String(jwt).trim(), url, { now: exportedAt })
    if (!('reason' in list)) {
      const untrusted = untrustedIssuer(trust, list.issuer, undefined, list.validFrom)
      if (untrusted) list = { reason: untrusted }
    }
    lists.set(url, list)
  }
  // How many VCs name each list that does not verify: said with the list, not once per VC.
  const unverifiedBy = new Map<string, number>()

  const revocations = new Map<string, AuditEvent>()
  for (const entry of entries) {
    if (entry.action === 'credential.revoked' || entry.action === 'attestation.revoked')
      revocations.set(`${entry.target.type} ${entry.target.id}`, entry)
  }

  // Trusted issuers' attestations: their VC-JWTs by the bundle's external_issuers, as recorded.
  const external = bundle.attestations.filter((a) => a.source === 'external')
  await verifyExternalRecords(external, trust, problems, notes)

  const records: Array<[VcKind, string, Record<string, unknown>]> = [
    ...bundle.credentials.map((c): [VcKind, string, Record<string, unknown>] => [
      'credential',
      c.credential_id,
      c,
    ]),
    ...bundle.attestations
      .filter((a) => a.source !== 'external')
      .map((a): [VcKind, string, Record<string, unknown>] => ['attestation', a.attestation_id, a]),
  ]
  // The signatures, VERIFY_AT_ONCE at a time: each is awaited on the crypto thread pool, so one at a
  // time leaves this thread idle most of the time.
  const verified: Array<CredentialVerification | undefined> = []
  for (let start = 0; start < records.length; start += VERIFY_AT_ONCE) {
    const chunk = records.slice(start, start + VERIFY_AT_ONCE)
    verified.push(
      ...(await Promise.all(
        chunk.map(([, , record]) =>
          typeof record.vc_jwt === 'string'
            ? verifyCredential(record.vc_jwt, { record, trust, asRecorded: true })
            : undefined,
        ),
      )),
    )
    const done = start + chunk.length
    if (Math.floor(done / 1000) > Math.floor(start / 1000))
      progress(done, records.length, 'credentials and attestations')
  }

  let revoked = 0
  let withoutList = 0
  for (const [i, [kind, id, record]] of records.entries()) {
    const name = `${kind} ${id}`
    const problem = (what: string) => problems.push(`${name}: ${what}`)
    const vc = verified[i]
    if (!vc) {
      problem('the record has no vc_jwt')
      continue
    }
    if (!vc.valid) {
      problem(vc.reason)
      continue
    }
    if (vc.kind !== kind) {
      problem(`its VC is signed as ${named(vc.kind)}, not as ${named(kind)}`)
      continue
    }

    const recordRevoked = record.status === 'revoked'
    const revocation = revocations.get(name)
    // Revoked by the log after the export began reading records: its bit, in a list read before the
    // revocation, may not show it. Its record does: the export reads it again after the checkpoint
    // that covers the revocation (docs/verification.md, "The window of an audit bundle").
    const lateRevocation = revocation !== undefined && Number(revocation.log_index) >= windowFrom
    if (recordRevoked && !revocation)
      problem(`the record says revoked, but the log has no ${kind}.revoked entry`)
    if (!recordRevoked && revocation)
      problem(`the log revoked it (entry ${String(revocation.log_index)}), but its record says active`)

    const position: StatusPosition | { reason: string; absent?: true } = statusEntryOf(vc.claims)
    let bitSet: boolean | undefined
    if ('reason' in position) {
      if (position.absent) withoutList++
      else problem(`status not verified: ${position.reason}`)
    } else {
      const list = lists.get(position.url)
      if (!list) problem(`its status list ${position.url} is not in the bundle`)
      else if ('reason' in list) unverifiedBy.set(position.url, (unverifiedBy.get(position.url) ?? 0) + 1)
      else {
        const status = statusInList(vc.claims, position, list)
        if (status.status === 'unknown') problem(`status not verified: ${status.reason}`)
        else bitSet = status.status === 'revoked'
      }
      const bit = `bit ${position.index} of its status list ${position.url}`
      if (bitSet === false && recordRevoked && !lateRevocation) problem(`revoked, but ${bit} is clear`)
      if (bitSet === true && !recordRevoked) problem(`active, but ${bit} is set`)
    }
    if (recordRevoked) revoked++
  }
  for (const [url, list] of lists) {
    if (!('reason' in list)) continue
    const named = unverifiedBy.get(url) ?? 0
    problems.push(
      `status list ${url}: ${list.reason}${named > 0 ? ` (so the status of the ${named === 1 ? 'credential or attestation' : `${named} credentials and attestations`} naming it is not verified)` : ''}`,
    )
  }

  if (problems.length === 0) {
    notes.push(
      `${plural(bundle.credentials.length, 'credential')} and ${plural(bundle.attestations.length - external.length, 'attestation')}: each VC-JWT signed by its jurisdiction's issuer in the trust bundle, each record equal to what was signed`,
    )
    notes.push(
      `${plural(lists.size, 'status list')} signed by ${lists.size === 1 ? 'its issuer' : 'their issuers'}; ${revoked} revoked, ${revoked === 1 ? 'its bit' : 'their bits'} set and ${revoked === 1 ? 'its' : 'their'} revocation in the log; every other bit named clear`,
    )
    if (withoutList > 0) notes.push(`${withoutList} issued before status lists: no status list to check`)
  }
}

/**
 * Trusted issuers' attestations (docs/issuers.md, "In the trust bundle"), as recorded: each VC-JWT signed
 * by a key of its issuer in the trust bundle's `external_issuers` (a retired key only before its
 * retirement; an issuer removed since still vouches for what it signed), of a type it is trusted for, its
 * record equal to what was signed. Their status is the issuers' lists, which the bundle does not hold:
 * the note says it was not checked. Adds to `problems` and `notes`.
 */
async function verifyExternalRecords(
  records: Array<Record<string, unknown> & { attestation_id: string }>,
  trust: TrustBundle,
  problems: string[],
  notes: string[],
): Promise<void> {
  if (records.length === 0) return
  let held = 0
  for (let start = 0; start < records.length; start += VERIFY_AT_ONCE) {
    const chunk = records.slice(start, start + VERIFY_AT_ONCE)
    const results = await Promise.all(
      chunk.map((record) =>
        typeof record.vc_jwt === 'string'
          ? verifyExternalAttestation(record.vc_jwt, { record, trust, asRecorded: true })
          : undefined,
      ),
    )
    for (const [i, result] of results.entries()) {
      const name = `attestation ${chunk[i]!.attestation_id}`
      if (!result) problems.push(`${name}: the record has no vc_jwt`)
      else if (!result.valid) problems.push(`${name}: ${result.reason}`)
      else held++
    }
  }
  if (held === records.length)
    notes.push(
      `${plural(records.length, "trusted issuer's attestation", "trusted issuers' attestations")}: each VC-JWT signed by a key of its issuer in the trust bundle, of a type it is trusted for, each record equal to what was signed (their status is the issuers' lists, not in the bundle: not checked)`,
    )
}
