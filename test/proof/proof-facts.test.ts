import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { type ProofFacts, proofFacts } from '../../src/proof/facts.js'
import { auditEventFromRow } from '../../server/pipeline/audit/from-row.js'

/*
 * proofFacts and auditEventFromRow assign their fields one by one (docs/performance.md, "Fifth pass:
 * the batch"): the documented order, whatever order the input has, an absent optional field left out.
 */

const ORDER = [
  'version',
  'org_id',
  'issuers',
  'proof_id',
  'transfer_id',
  'token_id',
  'decision',
  'evaluated_at',
  'transfer',
  'recovery',
  'reason',
  'compliance_details',
] as const
const OPTIONAL = new Set(['version', 'org_id', 'issuers', 'transfer_id', 'transfer', 'recovery', 'reason'])

describe('proofFacts', () => {
  it('gives the facts in their documented order, the absent ones left out, extra fields dropped', () => {
    fc.assert(
      fc.property(
        fc.subarray([...OPTIONAL]),
        fc.array(fc.nat(), { minLength: ORDER.length + 1, maxLength: ORDER.length + 1 }),
        (present, weights) => {
          const fields = [...ORDER.filter((f) => !OPTIONAL.has(f) || present.includes(f)), 'digest']
          // The input's keys in a shuffled order, each value its own object.
          const shuffled = fields
            .map((f, i) => [f, weights[i]!] as const)
            .sort((a, b) => a[1] - b[1])
            .map(([f]) => f)
          const input = Object.fromEntries(shuffled.map((f) => [f, { of: f }])) as unknown as ProofFacts
          const facts = proofFacts(input)
          expect(Object.keys(facts)).toEqual(fields.filter((f) => f !== 'digest'))
          for (const [key, value] of Object.entries(facts)) expect(value).toBe((input as any)[key])
        },
      ),
    )
  })
})

describe('auditEventFromRow', () => {
  const row = {
    event_id: 'aud_1',
    org_id: 'acme',
    at: '2026-01-15T12:00:00.000Z',
    actor: '{"key_id":"key_1","roles":["admin"]}',
    actor_key_id: 'key_1',
    request_id: 'req-1',
    action: 'key.created',
    target_type: 'key',
    target_id: 'key_2',
    changes: '{"before":null,"after":{"name":"k"}}',
    log_index: 7,
  }

  it('gives the event in its order, changes and log_index only when stored', () => {
    const event = auditEventFromRow(row)
    expect(JSON.stringify(event)).toBe(
      '{"event_id":"aud_1","org_id":"acme","at":"2026-01-15T12:00:00.000Z","actor":{"key_id":"key_1","roles":["admin"]},' +
        '"request_id":"req-1","action":"key.created","target":{"type":"key","id":"key_2"},' +
        '"changes":{"before":null,"after":{"name":"k"}},"log_index":7}',
    )
    expect(Object.keys(auditEventFromRow({ ...row, changes: null, log_index: null }))).toEqual([
      'event_id',
      'org_id',
      'at',
      'actor',
      'request_id',
      'action',
      'target',
    ])
  })
})
