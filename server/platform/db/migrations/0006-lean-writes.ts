import canonicalizeModule from 'canonicalize'
import { type Kysely, type Migration, sql } from 'kysely'

// A migration imports no live code: what it needs of the proof format is copied here as it was when
// it was written (RFC 8785 canonical JSON of the facts of a version-1 transfer proof), so a later
// change of the format cannot change what this migration does.
const canonicalize = ((canonicalizeModule as unknown as { default?: unknown }).default ??
  canonicalizeModule) as (input: unknown) => string | undefined

/**
 * Writes that store each thing once, and index only what a query reads (issue 11):
 * - a transfer's proof no longer stores its facts: every fact is a column of its transfer row (ids,
 *   decision = status, time, parties, amount, reason, the evaluation), so the proof's canonical facts
 *   are rebuilt from it; a recovery's proof, which has no transfer, keeps its facts;
 * - a proof's JWS is stored without its payload (`header..signature`, RFC 7515 Appendix F): the payload
 *   is the canonical facts;
 * - proofs.transfer_id loses its unique index (no query reads by it; each transfer's proof id is
 *   generated with it), and transfers lose transfers_from_idx and transfers_to_idx, which no query
 *   plan uses (the jurisdiction filter walks transfers_org_idx; see docs/performance.md).
 * Existing proofs move only where the rebuilt facts are byte for byte the stored ones; any other keeps
 * its facts (and a JWS whose payload is not its facts stays whole). SQLite cannot make a column
 * nullable in place, so the table is rebuilt (copy, drop, rename) on both dialects.
 */
export const leanWrites: Migration = {
  // biome-ignore lint/suspicious/noExplicitAny: the schema as it was then, not the current one.
  async up(db: Kysely<any>) {
    await db.schema.dropIndex('transfers_from_idx').execute()
    await db.schema.dropIndex('transfers_to_idx').execute()

    await db.schema
      .createTable('proofs_v6')
      .addColumn('proof_id', 'text', (c) => c.primaryKey())
      .addColumn('org_id', 'text', (c) => c.notNull())
      .addColumn('transfer_id', 'text')
      .addColumn('facts', 'text')
      .addColumn('digest', 'text', (c) => c.notNull())
      .addColumn('jws', 'text', (c) => c.notNull())
      .addColumn('kid', 'text', (c) => c.notNull())
      .execute()
    let after = ''
    for (;;) {
      const { rows } = await sql<OldProof>`
        select p.proof_id, p.org_id, p.transfer_id, p.facts, p.digest, p.jws, p.kid,
          t.token_id, t.from_jurisdiction, t.to_jurisdiction, t.sender_did, t.recipient_did, t.amount,
          t.status, t.proof_id as t_proof_id, t.compliance_details, t.created_at, t.reason
        from proofs p left join transfers t on t.transfer_id = p.transfer_id
        where p.proof_id > ${after} order by p.proof_id limit ${BATCH}`.execute(db)
      if (rows.length === 0) break
      const moved = rows.map((row) => ({
        proof_id: row.proof_id,
        org_id: row.org_id,
        transfer_id: row.transfer_id,
        facts: transferFacts(row) === row.facts ? null : row.facts,
        digest: row.digest,
        jws: detached(row.jws, row.facts),
        kid: row.kid,
      }))
      await db.insertInto('proofs_v6').values(moved).execute()
      after = rows[rows.length - 1]!.proof_id
    }
    await db.schema.dropTable('proofs').execute()
    await db.schema.alterTable('proofs_v6').renameTo('proofs').execute()
  },
}

/** Proofs moved per round trip (one select, one multi-row insert of 7 values a row). */
const BATCH = 500

interface OldProof {
  proof_id: string
  org_id: string
  transfer_id: string | null
  facts: string
  digest: string
  jws: string
  kid: string
  // The transfer's columns; null for a recovery's proof.
  token_id: string | null
  from_jurisdiction: string
  to_jurisdiction: string
  sender_did: string
  recipient_did: string
  amount: number | string
  status: string
  t_proof_id: string
  compliance_details: string
  created_at: string
  reason: string | null
}

/** The canonical facts a transfer row holds (as the server builds them since 0006), or null. */
function transferFacts(row: OldProof): string | null {
  if (row.transfer_id === null || row.token_id === null || row.t_proof_id !== row.proof_id) return null
  const facts = {
    proof_id: row.proof_id,
    transfer_id: row.transfer_id,
    token_id: row.token_id,
    decision: row.status,
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
  }
  return canonicalize(facts) ?? null
}

/** The JWS without its payload when the payload is exactly the facts; otherwise whole. */
function detached(jws: string, facts: string): string {
  const [header, payload, signature] = jws.split('.')
  return payload === Buffer.from(facts).toString('base64url') ? `${header}..${signature}` : jws
}
