import { Migrator, sql } from 'kysely'
import { describe, expect, it } from 'vitest'
import { migrations } from '../../../server/platform/db/migrations/index.js'
import {
  transferFromRow,
  transferProofFacts,
  transferSummaryFromRow,
} from '../../../server/areas/rwa/transfers/from-row.js'
import { countTransfers, listTransfers } from '../../../server/areas/rwa/transfers/queries.js'
import type { ComplianceDetails, Transfer, TransferSummary } from '../../../src/contract/rwa.js'
import { canonicalFacts, type ProofFacts } from '../../../src/proof/verify.js'
import { TEST_DIALECT } from '../../support/backends.js'
import { emptyDatabasePerTest } from '../../support/empty-database.js'

/*
 * Migration 0008 on transfers written before it: `compliance_details` is split into the summary a list
 * reads and the checks only the detail and the proof read, and every answer made from a row — list
 * item, detail, proof facts — is byte for byte what it was made from the row before.
 */

const check = (requirement: string, satisfied: boolean, reason: string) => ({
  requirement,
  jurisdiction: 'A',
  evidence: satisfied ? 'att_1' : null,
  satisfied,
  reason,
})
/** Evaluations as the server wrote them: passed, failed, empty requirement lists, text to escape. */
const evaluations: ComplianceDetails[] = [
  {
    source_requirements: ['kyc', 'title_verification'],
    target_requirements: ['kyc', 'aml'],
    all_satisfied: true,
    checks: [check('token_active', true, 'ok'), check('kyc', true, 'attested')],
  },
  {
    source_requirements: ['kyc'],
    target_requirements: [],
    all_satisfied: false,
    checks: [check('kyc', false, 'No valid "kyc" attestation — naïve \\ test\nline ✓ 𝄞')],
  },
  { source_requirements: [], target_requirements: ['kyc'], all_satisfied: true, checks: [] },
]

/** A transfer row as the server stored it before 0008, the i-th of an organization. */
function oldRow(org: string, i: number) {
  const status = i % 4 === 3 ? 'forced' : i % 2 === 0 ? 'approved' : 'rejected'
  return {
    transfer_id: `tx_${String(i).padStart(26, '0')}`,
    org_id: org,
    token_id: i % 3 === 0 ? 'tok_b' : 'tok_a',
    from_jurisdiction: i % 5 === 0 ? 'C' : 'A',
    to_jurisdiction: 'B',
    sender_did: 'did:web:s',
    recipient_did: `did:web:r${i}`,
    amount: 1000 + i,
    status,
    proof_id: `prf_${String(i).padStart(26, '0')}`,
    compliance_details: JSON.stringify(evaluations[i % evaluations.length]),
    created_at: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
    reason: status === 'forced' ? 'court order' : null,
  }
}
type OldRow = ReturnType<typeof oldRow>

// How the server made its answers from an old row (from-row.ts before 0008).
const oldDetail = (row: OldRow): Transfer => ({
  transfer_id: row.transfer_id,
  status: row.status as Transfer['status'],
  proof_id: row.proof_id,
  compliance_details: JSON.parse(row.compliance_details),
  token_id: row.token_id,
  from_jurisdiction: row.from_jurisdiction,
  to_jurisdiction: row.to_jurisdiction,
  sender_did: row.sender_did,
  recipient_did: row.recipient_did,
  amount: Number(row.amount),
  created_at: row.created_at,
  reason: row.reason,
})
const oldSummary = (row: OldRow): TransferSummary => {
  const { reason: _, compliance_details, ...rest } = oldDetail(row)
  const { source_requirements, target_requirements, all_satisfied } = compliance_details
  return {
    transfer_id: rest.transfer_id,
    status: rest.status,
    proof_id: rest.proof_id,
    compliance_details: { source_requirements, target_requirements, all_satisfied },
    token_id: rest.token_id,
    from_jurisdiction: rest.from_jurisdiction,
    to_jurisdiction: rest.to_jurisdiction,
    sender_did: rest.sender_did,
    recipient_did: rest.recipient_did,
    amount: rest.amount,
    created_at: rest.created_at,
  }
}
const oldFacts = (row: OldRow): ProofFacts => ({
  proof_id: row.proof_id,
  transfer_id: row.transfer_id,
  token_id: row.token_id,
  decision: row.status as ProofFacts['decision'],
  evaluated_at: row.created_at,
  transfer: {
    from_jurisdiction: row.from_jurisdiction,
    to_jurisdiction: row.to_jurisdiction,
    sender_did: row.sender_did,
    recipient_did: row.recipient_did,
    amount: Number(row.amount),
  },
  ...(row.reason !== null ? { reason: row.reason } : {}),
  compliance_details: JSON.parse(row.compliance_details),
})

const openEmpty = emptyDatabasePerTest()

describe('migration 0008 (summary columns)', () => {
  it('splits each evaluation into summary and checks; every answer made from a row is unchanged', async () => {
    const k = await openEmpty()
    const migrator = new Migrator({ db: k, provider: { getMigrations: async () => migrations } })
    expect((await migrator.migrateTo('0006-lean-writes')).error).toBeUndefined()
    const rows = [
      ...Array.from({ length: 130 }, (_, i) => oldRow('org_1', i)),
      ...Array.from({ length: 7 }, (_, i) => oldRow('org_2', 1000 + i)),
    ]
    await k
      .insertInto('transfers')
      .values(rows as never)
      .execute()
    // 0007 backfills the counters the lists' totals come from.
    expect((await migrator.migrateTo('0007-flat-costs')).error).toBeUndefined()
    expect((await migrator.migrateTo('0008-summary-columns')).error).toBeUndefined()

    const stored = await k.selectFrom('transfers').selectAll().orderBy('transfer_id').execute()
    expect(stored).toHaveLength(rows.length)
    expect(stored[0]).not.toHaveProperty('compliance_details')
    const byId = new Map(stored.map((row) => [row.transfer_id, row]))
    for (const old of rows) {
      const row = byId.get(old.transfer_id)!
      expect(JSON.stringify(transferSummaryFromRow(row))).toBe(JSON.stringify(oldSummary(old)))
      expect(JSON.stringify(transferFromRow(row))).toBe(JSON.stringify(oldDetail(old)))
      expect(canonicalFacts(transferProofFacts(row))).toBe(canonicalFacts(oldFacts(old)))
    }

    // Every page of each filter's list, as the answers before 0008 made them from the old rows.
    const filters = [
      {},
      { token_id: 'tok_b' },
      { status: 'rejected' as const },
      { jurisdiction: 'C' },
      { token_id: 'tok_a', status: 'approved' as const, jurisdiction: 'A' },
    ]
    for (const filter of filters) {
      const expected = rows
        .filter(
          (r) =>
            r.org_id === 'org_1' &&
            (!filter.token_id || r.token_id === filter.token_id) &&
            (!filter.status || r.status === filter.status) &&
            (!filter.jurisdiction ||
              r.from_jurisdiction === filter.jurisdiction ||
              r.to_jurisdiction === filter.jurisdiction),
        )
        .sort((a, b) => (a.transfer_id < b.transfer_id ? 1 : -1))
      const listed: TransferSummary[] = []
      let cursor: string | undefined
      for (;;) {
        const page = await listTransfers(k, 'org_1', { limit: 50, ...filter, cursor })
        expect(page.total).toBe(expected.length)
        expect(await countTransfers(k, 'org_1', filter)).toBe(expected.length)
        listed.push(...page.rows.map(transferSummaryFromRow))
        if (page.next_cursor === null) break
        cursor = page.next_cursor
      }
      expect(JSON.stringify(listed)).toBe(JSON.stringify(expected.map(oldSummary)))
    }

    // The indexes the lists use are there again after the rebuild.
    const indexes =
      TEST_DIALECT === 'postgres'
        ? await sql<{
            name: string
          }>`select indexname as name from pg_indexes where tablename = 'transfers'`.execute(k)
        : await sql<{
            name: string
          }>`select name from sqlite_master where type = 'index' and tbl_name = 'transfers' and sql is not null`.execute(
            k,
          )
    expect(indexes.rows.map((i) => i.name).filter((n) => n.endsWith('_idx'))).toEqual(
      expect.arrayContaining([
        'transfers_org_idx',
        'transfers_token_idx',
        'transfers_status_idx',
        'transfers_from_idx',
        'transfers_to_idx',
      ]),
    )
  })
})
