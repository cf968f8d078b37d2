import { existsSync } from 'node:fs'
import type { Command } from 'commander'
import { ApiProblemError } from '../../client/errors.js'
import type { Proof } from '../../contract/rwa.js'
import { proofInputOf, transferMismatch, verifyProofTrusted } from '../../proof/verify.js'
import type { CliContext } from '../context.js'
import type { Cell } from '../output.js'
import { withContext } from '../context.js'
import { EXIT, ExitError } from '../exit-error.js'
import { parseJsonInput, readInputFile } from '../input.js'
import type { Run } from '../invoke.js'
import { showing } from './shapes.js'
import { showChecks, statusWord } from './transfers.js'
import { doesNotHold, trustOf, type VerifyOptions } from './verification.js'

function showProof(ctx: CliContext, p: Proof): void {
  ctx.out.record([
    ['proof_id', p.proof_id],
    ['transfer_id', p.transfer_id],
    ['token_id', p.token_id],
    ['decision', statusWord(ctx, p.decision)],
    ['evaluated_at', p.evaluated_at],
    ...(p.transfer
      ? ([
          ['route', `${p.transfer.from_jurisdiction} -> ${p.transfer.to_jurisdiction}`],
          ['sender_did', p.transfer.sender_did],
          ['recipient_did', p.transfer.recipient_did],
          ['amount', p.transfer.amount],
        ] as Array<[string, Cell]>)
      : []),
    ...(p.recovery
      ? ([
          ['lost_did', p.recovery.lost_did],
          ['new_did', p.recovery.new_did],
          ['moved', p.recovery.moved.map((h) => `${h.amount} in ${h.jurisdiction}`).join(', ')],
        ] as Array<[string, Cell]>)
      : []),
    ...(p.reason !== undefined ? ([['reason', p.reason]] as Array<[string, Cell]>) : []),
    ['digest', p.digest],
    ['kid', p.kid],
    ...(p.log_index !== undefined ? ([['log_index', p.log_index]] as Array<[string, Cell]>) : []),
  ])
  showChecks(ctx, p.compliance_details)
}

export const get = showing('getProof', showProof, (p) => [p.proof_id])

/** A proof from a file or stdin: the proof itself, or a saved transfer detail that carries one. */
async function proofFromInput(
  source: string,
  ctx: CliContext,
): Promise<{ proof: Proof; transfer?: Record<string, unknown> }> {
  const json = parseJsonInput(
    await readInputFile(source, ctx),
    source,
    'save a proof with `rwa proofs get ID --json > proof.json`',
    { verified: true },
  )
  const input = proofInputOf(json)
  if ('error' in input) {
    throw doesNotHold(
      `${source === '-' ? 'stdin' : source} does not hold a proof or a saved transfer: ${input.error}`,
      'save a proof with `rwa proofs get ID --json`, or a transfer with `rwa transfers get ID --json`',
    )
  }
  return input
}

/**
 * The trusted issuers' attestations a proof's checks name by `vc_sha256` (docs/issuers.md, "In a
 * proof"), fetched from the server by id: each check's digest is then compared with its VC-JWT. One the
 * server does not have is left out, and named by the verification as not at hand.
 */
async function reliedOn(ctx: CliContext, proof: Proof): Promise<Map<string, Record<string, unknown>>> {
  const ids = new Set(
    proof.compliance_details.checks
      .filter((c) => c.vc_sha256 !== undefined && c.evidence !== null)
      .map((c) => c.evidence as string),
  )
  const found = new Map<string, Record<string, unknown>>()
  if (ids.size === 0) return found
  const gov = (await ctx.rwa()).governance
  for (const id of ids) {
    try {
      found.set(id, (await gov.getAttestation({ params: { id } })).raw as Record<string, unknown>)
    } catch (error) {
      if (!(error instanceof ApiProblemError) || error.status !== 404) throw error
    }
  }
  return found
}

/** `rwa proofs jwks`: the service's public key set, as JSON, to save for offline verification. */
export const jwks: Run<'getProofKeys'> = async ({ ctx, send }) => {
  const { data, raw } = await send()
  // The key set is a document to save, so it prints as JSON in every mode but --quiet (its kids).
  ctx.out.result(
    raw,
    () => ctx.out.line(JSON.stringify(raw, null, 2)),
    data.keys.map((k) => k.kid),
  )
  if (process.stdout.isTTY) ctx.out.info('save it for offline verification: rwa proofs jwks > jwks.json')
}

/**
 * `rwa proofs verify <proof_id | file | -> [--trust FILE]`: verifies a proof as an auditor would
 * (docs/cli.md, "Auditing offline"): its key one of the trust bundle's proof keys (`--trust FILE`, no network
 * for a proof from a file; else the server's bundle), the digest recomputed, the signature checked, a
 * version-2 proof made for the bundle's organization by the bundle's issuers, and a saved transfer equal to
 * the signed facts field by field. Exits 8 when it does not hold.
 */
export function verify(source: string, options: VerifyOptions, command: Command) {
  return withContext(command, async (ctx) => {
    if (source === '-' && options.trust === '-') {
      throw new ExitError(EXIT.usage, 'the proof and --trust cannot both come from stdin')
    }
    const byId = source !== '-' && /^prf_/.test(source) && !existsSync(source)
    const input = byId
      ? proofInputOf((await (await ctx.rwa()).governance.getProof({ params: { id: source } })).raw)
      : await proofFromInput(source, ctx)
    if ('error' in input) throw doesNotHold(`proof ${source} does not hold: ${input.error}`)
    const { proof, transfer } = input
    const trust = await trustOf(ctx, options)
    // A proof fetched by id: the attestations its checks relied on are fetched too, to compare digests.
    const attestations = byId ? await reliedOn(ctx, proof) : undefined
    let result = await verifyProofTrusted(proof, trust.bundle, attestations ? { attestations } : {})
    if (result.valid && transfer) {
      const mismatch = transferMismatch(transfer, proof)
      result = mismatch
        ? { valid: false, reason: mismatch }
        : {
            ...result,
            notes: [...result.notes, 'the saved transfer equals the signed facts, field by field'],
          }
    }
    const report = {
      proof_id: proof.proof_id,
      transfer_id: proof.transfer_id,
      decision: proof.decision,
      version: proof.version ?? 1,
      org_id: proof.org_id ?? null,
      digest: proof.digest,
      kid: proof.kid,
      trust_from: trust.from,
      valid: result.valid,
      ...(result.valid ? { notes: result.notes } : { reason: result.reason }),
    }
    ctx.out.result(report, () => {
      if (result.valid) {
        const about = proof.transfer_id ? `for transfer ${proof.transfer_id}` : `for token ${proof.token_id}`
        ctx.out.line(
          `${ctx.out.style.green('✓ proof holds')}: ${proof.proof_id} ${about} (${proof.decision})\n  digest recomputed and matches; signature valid with key ${result.kid}\n  ${result.notes.join('\n  ')}\n  trust from ${trust.from}`,
        )
      }
    })
    if (!result.valid) {
      // A saved trust bundle that lacks the proof's key (or an issuer) is most likely older than it.
      const lacks =
        'unknownToBundle' in result && options.trust !== undefined ? result.unknownToBundle : undefined
      throw doesNotHold(
        `proof ${proof.proof_id} does NOT hold: ${result.reason}`,
        lacks
          ? `the trust bundle ${trust.from} likely predates ${lacks === 'key' ? `the proof key ${proof.kid}: it was saved before the server rotated its key` : 'an issuer the proof names: it was saved before that jurisdiction was registered'}; save a fresh one with \`rwa trust-bundle > trust.json\` and verify again (if a fresh one lacks it too, the proof is not the server's)`
          : `the proof or its record was altered, or it was not signed for the organization of ${trust.from}`,
      )
    }
  })
}

/** `rwa trust-bundle`: the organization's trust anchors, as JSON, to save for offline verification. */
export const trustBundle: Run<'getTrustBundle'> = async ({ ctx, send }) => {
  const { data, raw } = await send()
  // A document to save: JSON in every mode but --quiet (the organization).
  ctx.out.result(raw, () => ctx.out.line(JSON.stringify(raw, null, 2)), [data.org_id])
  if (process.stdout.isTTY) ctx.out.info('save it for offline verification: rwa trust-bundle > trust.json')
}
