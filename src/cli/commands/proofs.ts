import { existsSync } from 'node:fs'
import type { Command } from 'commander'
import { type Jwks, jwksSchema, type Proof, proofSchema } from '../../contract/rwa.js'
import { verifyProof } from '../../proof/verify.js'
import type { CliContext } from '../context.js'
import type { Cell } from '../output.js'
import { withContext } from '../context.js'
import { EXIT, ExitError } from '../exit-error.js'
import { parseJsonInput, readInputFile } from '../input.js'
import { showChecks, statusWord } from './transfers.js'

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
  ])
  showChecks(ctx, p.compliance_details)
}

export function get(id: string, _options: unknown, command: Command) {
  return withContext(command, async (ctx) => {
    const { data, raw } = await (await ctx.rwa()).governance.getProof({ params: { id: id } })
    ctx.out.result(raw, () => showProof(ctx, data), [data.proof_id])
  })
}

/** A proof from a file or stdin: the proof itself, or a transfer detail that carries one. */
async function proofFromInput(source: string, ctx: CliContext): Promise<Proof> {
  const json = parseJsonInput(
    await readInputFile(source, ctx),
    source,
    'save a proof with `rwa proofs get ID --json > proof.json`',
  )
  const candidate = (json as { proof?: unknown } | null)?.proof ?? json
  const parsed = proofSchema.safeParse(candidate)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!
    throw new ExitError(
      EXIT.usage,
      `${source === '-' ? 'stdin' : source} does not hold a proof (${issue.path.join('.')}: ${issue.message})`,
    )
  }
  return parsed.data
}

/** `rwa proofs jwks`: the service's public key set, as JSON, to save for offline verification. */
export function jwks(_options: unknown, command: Command) {
  return withContext(command, async (ctx) => {
    const { data, raw } = await (await ctx.rwa({ public: true })).governance.getProofKeys()
    // The key set is a document to save, so it prints as JSON in every mode but --quiet (its kids).
    ctx.out.result(
      raw,
      () => ctx.out.line(JSON.stringify(raw, null, 2)),
      data.keys.map((k) => k.kid),
    )
    if (process.stdout.isTTY) ctx.out.info('save it for offline verification: rwa proofs jwks > jwks.json')
  })
}

/** A JWKS from a file saved with `rwa proofs jwks > jwks.json` (or the endpoint's JSON). */
async function jwksFromFile(path: string, ctx: CliContext): Promise<Jwks> {
  const name = path === '-' ? 'stdin' : path
  const json = parseJsonInput(
    await readInputFile(path, ctx),
    path,
    'save the keys with `rwa proofs jwks > jwks.json`',
  )
  const parsed = jwksSchema.safeParse(json)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!
    throw new ExitError(
      EXIT.usage,
      `--jwks ${name} is not a JWKS of Ed25519 keys (${issue.path.join('.') || '(file)'}: ${issue.message})`,
      'save the keys with `rwa proofs jwks > jwks.json`',
    )
  }
  return parsed.data
}

/**
 * `rwa proofs verify <proof_id | file | -> [--jwks FILE]`: recomputes the digest locally and checks the
 * JWS against the service's keys: those of `--jwks FILE` (no network at all for a proof from a file),
 * else the JWKS the server publishes. A proof that does not hold exits 1.
 */
export function verify(source: string, options: { jwks?: string }, command: Command) {
  return withContext(command, async (ctx) => {
    if (source === '-' && options.jwks === '-') {
      throw new ExitError(EXIT.usage, 'the proof and --jwks cannot both come from stdin')
    }
    const byId = source !== '-' && /^prf_/.test(source) && !existsSync(source)
    const proof = byId
      ? (await (await ctx.rwa()).governance.getProof({ params: { id: source } })).data
      : await proofFromInput(source, ctx)
    let keys: Jwks
    let keysFrom: string
    if (options.jwks !== undefined) {
      keys = await jwksFromFile(options.jwks, ctx)
      keysFrom = options.jwks === '-' ? 'stdin' : options.jwks
    } else {
      const rwa = await ctx.rwa({ public: true })
      keys = (await rwa.governance.getProofKeys()).data
      keysFrom = rwa.baseUrl
    }
    const result = await verifyProof(proof, keys)
    const report = {
      proof_id: proof.proof_id,
      transfer_id: proof.transfer_id,
      decision: proof.decision,
      digest: proof.digest,
      kid: proof.kid,
      keys_from: keysFrom,
      valid: result.valid,
      ...(result.valid ? {} : { reason: result.reason }),
    }
    ctx.out.result(report, () => {
      if (result.valid) {
        ctx.out.line(
          `${ctx.out.style.green('✓ proof holds')}: ${proof.proof_id} for transfer ${proof.transfer_id} (${proof.decision})\n  digest recomputed and matches; signature valid with key ${result.kid}\n  keys from ${keysFrom}`,
        )
      }
    })
    if (!result.valid) {
      throw new ExitError(
        EXIT.unexpected,
        `proof ${proof.proof_id} does NOT hold: ${result.reason}`,
        options.jwks !== undefined
          ? `the proof was altered, or was not signed by a key in ${keysFrom}`
          : "the proof was altered or was not signed by this server's published key",
      )
    }
  })
}
