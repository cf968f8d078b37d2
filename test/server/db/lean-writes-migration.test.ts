import { Migrator, sql } from 'kysely'
import { describe, expect, it } from 'vitest'
import { canonicalFacts, type ProofFacts } from '../../../src/proof/verify.js'
import { migrations } from '../../../server/platform/db/migrations/index.js'
import { proofFromRow } from '../../../server/areas/rwa/transfers/from-row.js'
import { signCompactEdDsa } from '../../../server/platform/signing/compact-jws.js'
import { generateSigningKey, importPrivateKey } from '../../../server/platform/signing/did-key.js'
import { TEST_DIALECT } from '../../support/backends.js'
import { emptyDatabasePerTest } from '../../support/empty-database.js'

/*
 * Migration 0006 on data written before it: a transfer's proof drops the facts its transfer row holds
 * and the payload of its JWS, and reads back exactly as before; anything else keeps what it had.
 */

const key = importPrivateKey(Buffer.from(generateSigningKey().privateKey, 'base64'))
const compliance = {
  source_requirements: ['kyc'],
  target_requirements: ['kyc'],
  all_satisfied: true,
  checks: [
    { requirement: 'token_active', jurisdiction: 'A', evidence: 'tok_1', satisfied: true, reason: 'ok' },
  ],
}
const transferRow = (id: string, reason: string | null) => ({
  transfer_id: `tx_${id}`,
  org_id: 'org_1',
  token_id: 'tok_1',
  from_jurisdiction: 'A',
  to_jurisdiction: 'B',
  sender_did: 'did:web:s',
  recipient_did: 'did:web:r',
  amount: 7,
  status: reason ? 'forced' : 'approved',
  proof_id: `prf_${id}`,
  compliance_details: JSON.stringify(compliance),
  created_at: '2026-01-02T03:04:05.000Z',
  reason,
})
/** A proof as the server stored it before 0006: the canonical facts, and the JWS carrying them. */
function oldProof(facts: ProofFacts) {
  const canonical = canonicalFacts(facts)
  const jws = signCompactEdDsa({ alg: 'EdDSA', kid: 'k1', typ: 'rwa-proof+jws' }, canonical, key)
  return {
    proof_id: facts.proof_id,
    org_id: 'org_1',
    transfer_id: facts.transfer_id ?? null,
    facts: canonical,
    digest: 'd',
    jws,
    kid: 'k1',
  }
}
const factsOf = (row: ReturnType<typeof transferRow>): ProofFacts => ({
  proof_id: row.proof_id,
  transfer_id: row.transfer_id,
  token_id: row.token_id,
  decision: row.status as ProofFacts['decision'],
  evaluated_at: row.created_at,
  transfer: {
    from_jurisdiction: 'A',
    to_jurisdiction: 'B',
    sender_did: 'did:web:s',
    recipient_did: 'did:web:r',
    amount: 7,
  },
  ...(row.reason ? { reason: row.reason } : {}),
  compliance_details: compliance,
})

const openEmpty = emptyDatabasePerTest()

describe('migration 0006 (lean writes)', () => {
  it('stores a transfer proof once and reads it back unchanged; keeps what it cannot rebuild', async () => {
    const k = await openEmpty()
    const migrator = new Migrator({ db: k, provider: { getMigrations: async () => migrations } })
    expect((await migrator.migrateTo('0005-shared-instances')).error).toBeUndefined()

    const approved = transferRow('1', null)
    const forced = transferRow('2', 'court order')
    const altered = transferRow('3', null)
    await k
      .insertInto('transfers')
      .values([approved, forced, altered] as never)
      .execute()
    const recovery = oldProof({
      proof_id: 'prf_r',
      token_id: 'tok_1',
      decision: 'recovered',
      evaluated_at: approved.created_at,
      recovery: { lost_did: 'did:web:l', new_did: 'did:web:n', moved: [] },
      reason: 'lost keys',
      compliance_details: compliance,
    })
    // A proof whose facts differ from its transfer row (as if the row had been edited): left whole.
    const edited = oldProof({ ...factsOf(altered), evaluated_at: '2025-01-01T00:00:00.000Z' })
    const before = [oldProof(factsOf(approved)), oldProof(factsOf(forced)), recovery, edited]
    await k
      .insertInto('proofs')
      .values(before as never)
      .execute()

    expect((await migrator.migrateTo('0006-lean-writes')).error).toBeUndefined()
    // The indexes no query plan used then are gone (0007 brings transfers_from_idx and _to_idx back).
    const indexes =
      TEST_DIALECT === 'postgres'
        ? (
            await sql<{
              name: string
            }>`select indexname as name from pg_indexes where tablename in ('transfers', 'proofs')`.execute(k)
          ).rows
        : (
            await sql<{
              name: string
            }>`select name from sqlite_master where type = 'index' and tbl_name in ('transfers', 'proofs')`.execute(
              k,
            )
          ).rows
    const names = indexes.map((i) => i.name)
    expect(names).not.toContain('transfers_from_idx')
    expect(names).not.toContain('transfers_to_idx')
    expect(names).toContain('transfers_org_idx')
    expect(names.filter((n) => n.includes('proofs'))).toHaveLength(1)
    // Read back by today's code, after the later migrations (0008 splits the transfer's evaluation).
    expect((await migrator.migrateToLatest()).error).toBeUndefined()
    const after = await k.selectFrom('proofs').selectAll().orderBy('proof_id').execute()
    const byId = new Map(after.map((p) => [p.proof_id, p]))
    const transfers = new Map(
      (await k.selectFrom('transfers').selectAll().execute()).map((t) => [t.transfer_id, t]),
    )
    expect(byId.get('prf_1')!.facts).toBeNull()
    expect(byId.get('prf_2')!.facts).toBeNull()
    expect(byId.get('prf_1')!.jws).toMatch(/^[\w-]+\.\.[\w-]+$/)
    expect(byId.get('prf_r')!.facts).toBe(recovery.facts)
    expect(byId.get('prf_r')!.jws).toMatch(/^[\w-]+\.\.[\w-]+$/)
    expect(byId.get('prf_3')!.facts).toBe(edited.facts)
    for (const old of before) {
      const row = byId.get(old.proof_id)!
      const proof = proofFromRow(row, row.transfer_id ? transfers.get(row.transfer_id) : undefined)
      expect(canonicalFacts(proof)).toBe(old.facts)
      expect(proof.jws).toBe(old.jws)
    }
  })
})
