import { existsSync } from 'node:fs'
import type { Command } from 'commander'
import { type Proof, proofSchema } from '../../contract/rwa.js'
import { verifyProof } from '../../proof/verify.js'
import type { CliContext } from '../context.js'
import { withContext } from '../context.js'
import { EXIT, ExitError } from '../exit-error.js'
import { readInputFile } from '../input.js'
import { showChecks, statusWord } from './transfers.js'

function showProof(ctx: CliContext, p: Proof): void {
  ctx.out.record([
    ['proof_id', p.proof_id],
    ['transfer_id', p.transfer_id],
    ['token_id', p.token_id],
    ['decision', statusWord(ctx, p.decision)],
    ['evaluated_at', p.evaluated_at],
    ['route', `${p.transfer.from_jurisdiction} -> ${p.transfer.to_jurisdiction}`],
    ['sender_did', p.transfer.sender_did],
    ['recipient_did', p.transfer.recipient_did],
    ['amount', p.transfer.amount],
    ['digest', p.digest],
    ['kid', p.kid],
  ])
  showChecks(ctx, p.compliance_details)
}

export function get(id: string, _options: unknown, command: Command) {
  return withContext(command, async (ctx) => {
    const { data, raw } = await (await ctx.rwa()).governance.getProof(id)
    ctx.out.result(raw, () => showProof(ctx, data))
  })
}

/** A proof from a file or stdin: the proof itself, or a transfer detail that carries one. */
async function proofFromInput(source: string, ctx: CliContext): Promise<Proof> {
  const text = await readInputFile(source, ctx)
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    throw new ExitError(
      EXIT.usage,
      `${source === '-' ? 'stdin' : source} is not JSON`,
      'save a proof with `rwa proofs get ID --json > proof.json`',
    )
  }
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

/**
 * `rwa proofs verify <proof_id | file | ->`: recomputes the digest locally and checks the JWS against
 * the JWKS the server publishes. A proof that does not hold exits 1.
 */
export function verify(source: string, _options: unknown, command: Command) {
  return withContext(command, async (ctx) => {
    const rwa = await ctx.rwa({ public: true })
    const byId = source !== '-' && /^prf_/.test(source) && !existsSync(source)
    const proof = byId
      ? (await (await ctx.rwa()).governance.getProof(source)).data
      : await proofFromInput(source, ctx)
    const { data: jwks } = await rwa.governance.getJwks()
    const result = await verifyProof(proof, jwks)
    const report = {
      proof_id: proof.proof_id,
      transfer_id: proof.transfer_id,
      decision: proof.decision,
      digest: proof.digest,
      kid: proof.kid,
      valid: result.valid,
      ...(result.valid ? {} : { reason: result.reason }),
    }
    ctx.out.result(report, () => {
      if (result.valid) {
        ctx.out.line(
          `${ctx.out.style.green('✓ proof holds')}: ${proof.proof_id} for transfer ${proof.transfer_id} (${proof.decision}); digest recomputed and matches, signature valid with key ${result.kid}`,
        )
      }
    })
    if (!result.valid) {
      throw new ExitError(
        EXIT.unexpected,
        `proof ${proof.proof_id} does NOT hold: ${result.reason}`,
        "the proof was altered or was not signed by this server's published key",
      )
    }
  })
}
