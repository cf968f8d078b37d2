import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Command } from 'commander'
import type { LogCheckpoint } from '../../contract/audit-log.js'
import {
  type AuditBundle,
  BUNDLE_FILES,
  BUNDLE_FORMAT,
  BUNDLE_FORMAT_1,
  verifyAuditBundle,
} from '../../tlog/bundle.js'
import { ProofError, verifyConsistency } from '../../tlog/merkle.js'
import { NoteError, unverifiedCheckpoint, verifyCheckpoint } from '../../tlog/note.js'
import { orgOfOrigin } from '../../tlog/origin.js'
import { DuplicateKeyError, parseStrictJson } from '../../text/strict-json.js'
import { withContext } from '../context.js'
import { EXIT, ExitError } from '../exit-error.js'
import type { Run } from '../invoke.js'
import { plural } from '../output.js'
import {
  heldLog,
  normalizedServer,
  otherOriginSeen,
  readWitness,
  type WitnessEntry,
  writeWitness,
} from '../witness.js'
import { doesNotHold, trustOf } from './verification.js'

/*
 * The verifiable log from the CLI (docs/governance.md, "The verifiable log"):
 * - `rwa log verify`: the server's latest checkpoint, signed by the pinned log key and consistent with
 *   the last one this machine saw of that log (the witness state, src/cli/witness.ts); a shorter tree
 *   or an inconsistent root is exit 8, "log rewritten", and a failed verify leaves the state as it was.
 * - `rwa audit export --out DIR`: a self-contained bundle of JSON files (./audit-export.ts).
 * - `rwa audit verify DIR`: all of it checked offline (src/tlog/bundle.ts).
 */

const rewritten = (detail: string) =>
  doesNotHold(
    `log rewritten: ${detail}`,
    'the server no longer shows the log this machine verified before: keep both checkpoints as evidence',
  )

/**
 * The log a checkpoint answer is of, by what its note signs: its origin, and the organization that
 * names. The answer's own `origin` and `org_id` travel beside the note, unsigned: one that differs
 * from the note is an answer changed on its way (or a server that does not know its own log).
 */
function signedLogOf(latest: LogCheckpoint, asked: string | undefined): { origin: string; org: string } {
  let origin: string
  try {
    origin = unverifiedCheckpoint(latest.checkpoint).origin
  } catch (error) {
    if (!(error instanceof NoteError)) throw error
    throw doesNotHold(`the server's checkpoint is not a signed checkpoint: ${error.message}`)
  }
  const org = orgOfOrigin(origin)
  if (org === undefined) throw doesNotHold(`the checkpoint's origin ${origin} names no organization's log`)
  if (latest.origin !== origin)
    throw doesNotHold(
      `the answer names the log ${latest.origin}, its signed checkpoint ${origin}: changed on its way`,
      'something between this machine and the server alters its answers: verify from another network',
    )
  if (latest.org_id !== org || (asked !== undefined && asked !== org))
    throw doesNotHold(
      `the checkpoint signs the log of organization ${org}, not ${asked ?? latest.org_id}'s`,
      'something between this machine and the server alters its answers: verify from another network',
    )
  return { origin, org }
}

/**
 * The refusal of a log first seen under `origin` while this machine holds `held`, the same
 * organization's log under another origin: what a forged log under a new name, signed by a fresh key,
 * looks like (docs/governance.md, "`rwa log verify`").
 */
const newOrigin = (org: string, held: WitnessEntry, origin: string, command: string) =>
  doesNotHold(
    `this machine holds organization ${org}'s log as ${heldLog(held)}; now it is signed as ${origin}, with a key this machine never saw`,
    `a log forged under a new name looks like this: if its operator did move it, pin the new log with a trust bundle obtained apart (${command} --trust trust.json), or accept it knowingly with ${command} --accept-new-origin`,
  )

export const logVerify: Run<'getLogCheckpoint'> = async ({ ctx, input, send }) => {
  const options = ctx.command.opts() as { trust?: string; acceptNewOrigin?: boolean }
  const client = await ctx.rwa()
  const asked = typeof input.query.org_id === 'string' ? input.query.org_id : undefined
  const latest: LogCheckpoint = (await send()).data
  const { origin, org } = signedLogOf(latest, asked)
  const state = await readWitness()
  const seen = state.logs[origin]

  // The key to verify against: the one --trust pins, else the one pinned at this log's first verify,
  // else (first use) the server's, unless this machine holds this organization's log under another
  // origin (through whatever server): a new origin's key, first seen now, would vouch for anything.
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
    const other = otherOriginSeen(state, origin)
    if (other && !options.acceptNewOrigin) throw newOrigin(org, other, origin, 'rwa log verify')
    // Nor a log of an organization never verified here, unasked, while this machine verifies others: a
    // forged log under another organization's name would pass as "first seen", and the rollback of
    // the log meant go unreported.
    const held = [
      ...new Set(
        Object.values(state.logs)
          .map((log) => orgOfOrigin(log.origin))
          .filter((o): o is string => o !== undefined),
      ),
    ]
    if (!other && asked === undefined && held.length > 0 && !held.includes(org))
      throw doesNotHold(
        `the server answers organization ${org}'s log, which this machine never verified; it verifies ${held.join(', ')}'s`,
        `a log forged under another organization's name looks like this: to verify ${org}'s log, name it: rwa log verify --org-id ${org}`,
      )
    vkey = latest.log_key.vkey
    pinnedBy = other
      ? `the server (a new origin, accepted with --accept-new-origin: pinned from now on)`
      : 'the server (first use: pinned from now on)'
  }
  let checkpoint: ReturnType<typeof verifyCheckpoint>
  try {
    // Also requires the key to be named by the note's origin: a key of another log does not do.
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
        await ctx.call('getLogConsistencyProof', {
          params: {},
          query: { ...input.query, from: seen.tree_size, to: checkpoint.size },
          body: {},
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
  state.logs[origin] = {
    origin,
    tree_size: checkpoint.size,
    root_hash,
    seen_at: new Date().toISOString(),
    vkey,
    checkpoint: latest.checkpoint,
    servers: [...new Set([...(seen?.servers ?? []), client.baseUrl].map(normalizedServer))],
  }
  await writeWitness(state)
  const result = {
    org_id: org,
    origin,
    tree_size: checkpoint.size,
    root_hash,
    key: pinnedBy,
    previous: seen ? { tree_size: seen.tree_size, root_hash: seen.root_hash, seen_at: seen.seen_at } : null,
  }
  ctx.out.result(result, () => {
    ctx.out.success(
      `log of ${org}: ${plural(checkpoint.size, 'entry', 'entries')}, checkpoint signed by ${pinnedBy}`,
    )
    ctx.out.line(`root ${root_hash}`)
    ctx.out.line(consistentWith ?? 'first checkpoint seen for this server and organization: kept')
  })
}

/** What `readBundle` read: the bundle, and whether an earlier rwa exported it (format 1). */
interface ReadBundle {
  bundle: AuditBundle
  earlier: boolean
}

async function readBundle(dir: string): Promise<ReadBundle> {
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
      return parseStrictJson(text)
    } catch (error) {
      // A key twice: this verifier would read one value, another reader the other.
      if (error instanceof DuplicateKeyError) throw doesNotHold(`${join(dir, file)}: ${error.message}`)
      throw doesNotHold(`${join(dir, file)} is not JSON`)
    }
  }
  const manifest = (await read(BUNDLE_FILES.manifest)) as AuditBundle['manifest'] | null
  const format = manifest?.format
  if (format !== BUNDLE_FORMAT && format !== BUNDLE_FORMAT_1) {
    throw doesNotHold(`${join(dir, BUNDLE_FILES.manifest)} is not an ${BUNDLE_FORMAT} manifest`)
  }
  const bundle: Record<string, unknown> = { manifest }
  for (const [name, file] of Object.entries(BUNDLE_FILES)) {
    if (name === 'manifest' || (name === 'checkpoints' && format === BUNDLE_FORMAT_1)) continue
    bundle[name] = await read(file)
  }
  if (format === BUNDLE_FORMAT_1) {
    // One checkpoint: its signed note is both, a snapshot; the fields beside it and the manifest's
    // window are unsigned, and not read.
    const note = ((await read('checkpoint.json')) as { checkpoint?: unknown } | null)?.checkpoint
    bundle.checkpoints = { before: note, after: note }
  }
  return { bundle: bundle as unknown as AuditBundle, earlier: format === BUNDLE_FORMAT_1 }
}

export function auditVerify(
  dir: string,
  options: { trust?: string; acceptWindow?: boolean; acceptNewOrigin?: boolean },
  command: Command,
) {
  return withContext(command, async (ctx) => {
    const { bundle, earlier } = await readBundle(dir)
    const pinned =
      options.trust !== undefined ? (await trustOf(ctx, { trust: options.trust })).bundle : undefined
    const witness = await readWitness()
    let outcome: Awaited<ReturnType<typeof verifyAuditBundle>>
    try {
      outcome = await verifyAuditBundle(bundle, {
        ...(pinned ? { pinned } : {}),
        // The witness state of the log the checkpoints sign.
        seenFor: (origin) => witness.logs[origin],
        progress: (done, total, what) => ctx.out.progress(`verifying ${what}: ${done} of ${total}…`),
      })
    } catch (error) {
      // A file of the wrong shape (a field missing, a list that is not one) is a bundle that does not hold.
      if (error instanceof TypeError) throw doesNotHold(`the bundle ${dir} is malformed: ${error.message}`)
      throw error
    } finally {
      ctx.out.progressDone()
    }
    // A log this machine holds under another origin, now a bundle under a new one, verified by the
    // bundle's own key: a forged log under a new name looks like this (as `rwa log verify` refuses it).
    const origin = outcome.checkpoint?.origin
    const held = origin !== undefined && !witness.logs[origin] ? otherOriginSeen(witness, origin) : undefined
    if (held && origin !== undefined && !pinned) {
      if (options.acceptNewOrigin)
        outcome.notes.push(
          `a new origin, accepted with --accept-new-origin: this machine holds the organization's log as ${heldLog(held)}`,
        )
      else
        outcome.problems.push(
          `this machine holds organization ${String(outcome.orgId)}'s log as ${heldLog(held)}; the bundle's checkpoints sign it as ${origin}, with the bundle's own key: a log forged under a new name looks like this; pass --trust with a trust bundle obtained apart, or --accept-new-origin to accept it knowingly`,
        )
    }
    if (earlier)
      outcome.notes.push(
        `exported by an earlier rwa (${BUNDLE_FORMAT_1}): one signed checkpoint, so verified as a snapshot at it; export again for two`,
      )
    // Not a snapshot: revocations logged while the records were read may not show in them. The window
    // is signed, and named; it is accepted only when asked.
    const window = outcome.window ?? []
    if (outcome.snapshot === false && !options.acceptWindow) {
      outcome.problems.push(
        `not a snapshot: the log grew from ${String(outcome.before?.size)} to ${plural(outcome.checkpoint?.size ?? 0, 'entry', 'entries')} while the export read the records (${plural(window.length, 'entry', 'entries')} logged between its two signed checkpoints: the status bit of a revocation among them may not show it); export again for a snapshot, or pass --accept-window to verify it with each of them named`,
      )
    }
    const result = {
      valid: outcome.problems.length === 0,
      org_id: outcome.orgId ?? null,
      tree_size: outcome.checkpoint?.size ?? null,
      tree_size_before_records: outcome.before?.size ?? null,
      snapshot: outcome.snapshot ?? null,
      window,
      problems: outcome.problems,
      notes: outcome.notes,
    }
    if (outcome.problems.length > 0) {
      if (ctx.out.json) ctx.out.result(result, () => {})
      throw doesNotHold(`the audit bundle ${dir} does not verify:\n  ${outcome.problems.join('\n  ')}`)
    }
    ctx.out.result(result, () => {
      ctx.out.success(`audit bundle ${dir} of ${String(outcome.orgId)} verifies`)
      for (const note of outcome.notes) ctx.out.line(note)
    })
    if (outcome.snapshot === false)
      ctx.out.warn(
        `not a snapshot: the log grew from ${String(outcome.before?.size)} to ${plural(outcome.checkpoint?.size ?? 0, 'entry', 'entries')} while the export read the records (both checkpoints signed); the ${plural(window.length, 'entry', 'entries')} between were named, not refused`,
      )
    if (!pinned)
      ctx.out.warn(
        'log key not pinned: pass --trust trust.json, a trust bundle obtained apart from this export',
      )
  })
}
