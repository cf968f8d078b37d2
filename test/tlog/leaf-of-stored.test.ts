import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { auditEventFromRow } from '../../server/pipeline/audit/from-row.js'
import { canonicalText, leafData, leafDataOfStored, type StoredAuditEvent } from '../../src/tlog/leaf.js'

/*
 * A write hashes its audit event's leaf from the texts it stores (leafDataOfStored), not from the
 * event parsed back (docs/performance.md, "Seventh pass: the leaf from its stored texts"). The leaf must
 * be the bytes an auditor rebuilds from the API's answer: leafData of the event as the API gives it.
 */

/** The event a write stores, its actor and changes as canonicalJson gives them. */
const stored = (event: Omit<StoredAuditEvent, 'actor' | 'changes'>, actor: unknown, changes: unknown) => ({
  ...event,
  actor: canonicalText(actor),
  changes: changes === undefined ? null : canonicalText(changes),
})

const answered = (
  row: Omit<StoredAuditEvent, 'actor' | 'changes'> & { actor: string; changes: string | null },
) => auditEventFromRow({ ...row, actor_key_id: null, log_index: null })

// Any text: escapes, control characters, lone surrogates, astral characters, keys that sort by UTF-16.
const text = fc.string({ unit: 'binary', maxLength: 12 })
const event = fc.record({
  event_id: text,
  org_id: text,
  at: text,
  request_id: fc.option(text, { nil: null }),
  action: text,
  target_type: text,
  target_id: text,
})
const json = fc.jsonValue({ maxDepth: 4 })

describe('the leaf of a stored audit event', () => {
  it('is the leaf of the event the API answers, for any actor, changes and strings', () => {
    fc.assert(
      fc.property(event, json, fc.option(json, { nil: undefined }), (e, actor, changes) => {
        const row = stored(e, actor, changes === undefined ? undefined : { before: null, after: changes })
        expect(leafDataOfStored(row)).toBe(leafData(answered(row)))
      }),
      { numRuns: 2000 },
    )
  })

  it('is the leaf of a change written as a service gives it: key order, -0, undefined members and dates', () => {
    const after = {
      transfer_id: 'trf_1',
      amount: -0,
      zeta: undefined,
      compliance_details: { checks: [{ rule: 'b', ok: true }], all_satisfied: true },
      at: new Date('2026-12-06T00:00:00.000Z'),
      '\u00e9': 'é',
      'e\u0301': 'decomposed',
      𝔘: '\ud800',
    }
    const row = stored(
      {
        event_id: 'aud_1',
        org_id: 'acme',
        at: '2026-12-06T00:00:00.000Z',
        request_id: null,
        action: 'transfer.create',
        target_type: 'transfer',
        target_id: 'trf_1',
      },
      { roles: ['owner', 'admin'], key_id: 'key_1' },
      { before: null, after },
    )
    expect(leafDataOfStored(row)).toBe(leafData(answered(row)))
    // The change as its service wrote it, parsed back from JSON.stringify (the stored text before): the same leaf.
    const legacy = {
      ...row,
      changes: JSON.stringify({ before: null, after }),
      actor: JSON.stringify({ roles: ['owner', 'admin'], key_id: 'key_1' }),
    }
    expect(leafDataOfStored(row)).toBe(leafData(answered(legacy)))
  })

  it('leaves `changes` out when the change recorded none, as the API does', () => {
    const row = stored(
      {
        event_id: 'aud_2',
        org_id: 'acme',
        at: '2026-12-06T00:00:00.000Z',
        request_id: 'req',
        action: 'key.revoke',
        target_type: 'key',
        target_id: 'key_2',
      },
      { system: 'bootstrap' },
      undefined,
    )
    expect(leafDataOfStored(row)).not.toContain('changes')
    expect(leafDataOfStored(row)).toBe(leafData(answered(row)))
  })
})
