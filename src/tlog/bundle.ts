import type { AuditEvent } from '../contract/audit.js'
import type { LogCheckpoint } from '../contract/audit-log.js'
import type { Proof, TrustBundle } from '../contract/rwa.js'
import { verifyProofTrusted } from '../proof/verify.js'
import { eventLeafHash } from './leaf.js'
import { appendToFrontier, type Hash, rootOfFrontier } from './merkle.js'
import { type Checkpoint, NoteError, verifyCheckpoint } from './note.js'

/*
 * An audit bundle (`rwa audit export --out DIR`, docs/governance.md "The audit bundle") and its offline
 * verification: the checkpoint's signature by the log key, the entries rebuilding its root, and every
 * record's entry. Pure: the CLI reads the files and prints the outcome.
 */

/** The files of a bundle, by name, and what each holds. */
export const BUNDLE_FILES = {
  manifest: 'manifest.json',
  checkpoint: 'checkpoint.json',
  entries: 'entries.json',
  trustBundle: 'trust-bundle.json',
  credentials: 'credentials.json',
  attestations: 'attestations.json',
  transfers: 'transfers.json',
  proofs: 'proofs.json',
  statusLists: 'status-lists.json',
} as const

export const BUNDLE_FORMAT = 'rwa-audit-bundle/1'

export interface AuditBundle {
  manifest: { format: string; org_id: string; server: string; exported_at: string }
  checkpoint: LogCheckpoint
  entries: AuditEvent[]
  trustBundle: TrustBundle
  credentials: Array<{ credential_id: string } & Record<string, unknown>>
  attestations: Array<{ attestation_id: string } & Record<string, unknown>>
  transfers: Array<{ transfer_id: string; proof_id: string } & Record<string, unknown>>
  proofs: Proof[]
  /** Status list URL → its VC-JWT, as served. */
  statusLists: Record<string, string>
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
  checkpoint?: Checkpoint
}

/**
 * The root of the first `size` leaves of `entries`, in one pass, reporting progress every 1,000. Also
 * returns the root at `alsoAt` (a witness's earlier size) on the way.
 */
function rootsOf(
  entries: AuditEvent[],
  alsoAt: number | undefined,
  progress: (done: number, total: number) => void,
): { root: Hash; earlier?: Hash } {
  let frontier: Hash[] = []
  let earlier: Hash | undefined
  entries.forEach((entry, i) => {
    if (alsoAt === i) earlier = rootOfFrontier(frontier)
    frontier = appendToFrontier(i, frontier, eventLeafHash(entry)).frontier
    if ((i + 1) % 1000 === 0) progress(i + 1, entries.length)
  })
  if (alsoAt === entries.length) earlier = rootOfFrontier(frontier)
  return { root: rootOfFrontier(frontier), ...(earlier ? { earlier } : {}) }
}

/**
 * Verifies a bundle offline. `pinned` is a trust bundle obtained apart from the export (`--trust`):
 * without it the bundle's own log key is used and the outcome says "log key not pinned". `seen` is
 * the last checkpoint a witness kept for this log: a smaller tree in the bundle, or entries that do
 * not rebuild its root, is a rewritten log.
 */
export async function verifyAuditBundle(
  bundle: AuditBundle,
  options: {
    pinned?: TrustBundle
    seen?: SeenCheckpoint
    progress?: (done: number, total: number) => void
  } = {},
): Promise<BundleVerification> {
  const problems: string[] = []
  const notes: string[] = []
  const trust = options.pinned ?? bundle.trustBundle
  const vkey = trust.log_key?.vkey
  if (!options.pinned)
    notes.push("log key not pinned: checked against the bundle's own trust bundle (pass --trust)")
  if (!vkey) return { problems: ['the trust bundle has no log key'], notes }

  let checkpoint: Checkpoint
  try {
    checkpoint = verifyCheckpoint(bundle.checkpoint.checkpoint, vkey)
  } catch (error) {
    if (!(error instanceof NoteError)) throw error
    return { problems: [`checkpoint: ${error.message}`], notes }
  }
  const orgId = bundle.manifest.org_id
  if (!checkpoint.origin.endsWith(`/console/audit/${orgId}`)) {
    problems.push(`the checkpoint's origin ${checkpoint.origin} is not organization ${orgId}'s log`)
  }

  // The entries: exactly the checkpoint's tree, each at its position, rebuilding its root.
  const entries = bundle.entries
  if (entries.length !== checkpoint.size) {
    problems.push(
      `the checkpoint covers ${checkpoint.size} entries and the bundle has ${entries.length}: ${entries.length < checkpoint.size ? 'entries were deleted' : 'entries were added'}`,
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
  const seen = options.seen
  const { root, earlier } = rootsOf(
    entries,
    seen && seen.tree_size <= entries.length ? seen.tree_size : undefined,
    options.progress ?? (() => {}),
  )
  if (entries.length === checkpoint.size && !root.equals(checkpoint.root)) {
    problems.push(
      "the entries do not rebuild the checkpoint's root: an entry was edited, deleted or reordered",
    )
  } else if (problems.length === 0) {
    notes.push(
      `${entries.length} entries rebuild the checkpoint's root ${checkpoint.root.toString('base64')}`,
    )
  }

  if (seen) {
    if (seen.tree_size > checkpoint.size) {
      problems.push(
        `log rewritten: the checkpoint has ${checkpoint.size} entries, fewer than the ${seen.tree_size} seen at ${seen.seen_at}`,
      )
    } else if (!earlier || earlier.toString('base64') !== seen.root_hash) {
      problems.push(
        `log rewritten: the first ${seen.tree_size} entries do not rebuild the root seen at ${seen.seen_at}`,
      )
    } else notes.push(`consistent with the checkpoint of ${seen.tree_size} entries seen at ${seen.seen_at}`)
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
  for (const proof of bundle.proofs) {
    const verification = await verifyProofTrusted(proof, trust)
    if (!verification.valid) problems.push(`proof ${proof.proof_id}: ${verification.reason}`)
    if (proof.transfer_id === undefined) continue
    const entry = entryOf('transfer', proof.transfer_id)
    if (!entry)
      problems.push(`proof ${proof.proof_id}'s transfer ${proof.transfer_id} has no entry in the log`)
    else if (proof.log_index !== undefined && proof.log_index !== entry.log_index) {
      problems.push(
        `proof ${proof.proof_id} names log_index ${proof.log_index}, its transfer's entry is ${entry.log_index}`,
      )
    }
  }
  if (problems.length === 0) {
    notes.push(
      `every record has its entry: ${bundle.credentials.length} credentials, ${bundle.attestations.length} attestations, ${bundle.transfers.length} transfers, ${bundle.proofs.length} proofs (signatures verified)`,
    )
  }
  return { problems, notes, checkpoint }
}
