import { describe, expect, it } from 'vitest'
import {
  receivedBy,
  takeFirstInFirstOut,
  windowBucketOf,
  windowBucketSeconds,
  windowFirstBucket,
} from '../../../../server/areas/rwa/rule-counters/buckets.js'
import { NO_HOLDING_FACTS } from '../../../../server/areas/rwa/rule-counters/counters.js'
import { maxSupplyDecision } from '../../../../server/areas/rwa/tokens/max-supply.js'
import {
  holdingRuleChecks,
  lockupAfterReceiptCheck,
  minHoldingCheck,
  transferWindowsCheck,
} from '../../../../server/areas/rwa/transfers/holding-rules.js'
import { NO_RULES } from '../../../../src/contract/rwa.js'

/* The holding rules and the buckets behind their counts, as pure functions (docs/governance.md). */

const move = (amount: number, recipient = 'did:web:b:bob') => ({
  token_id: 'tok_1',
  from_jurisdiction: 'US',
  to_jurisdiction: 'SG',
  sender_did: 'did:web:a:alice',
  recipient_did: recipient,
  amount,
})

describe('min_holding', () => {
  it('passes at the minimum and at 0, fails one under, saying by how much', () => {
    expect(minHoldingCheck(10, move(90), 100, 0).satisfied).toBe(true) // sender 10, recipient 90
    expect(minHoldingCheck(10, move(100), 100, 0).satisfied).toBe(true) // sender 0
    const under = minHoldingCheck(10, move(91), 100, 0)
    expect(under.reason).toBe(
      'sender did:web:a:alice would hold 9 of tok_1, under min_holding 10 by 1 (and not 0)',
    )
    const both = minHoldingCheck(10, move(9), 15, 0)
    expect(both.reason).toContain('sender did:web:a:alice would hold 6')
    expect(both.reason).toContain('recipient did:web:b:bob would hold 9 of tok_1, under min_holding 10 by 1')
    // The source holding alone decides when it keeps the sender at the minimum.
    expect(minHoldingCheck(10, move(90), { atLeast: 100 }, 0).reason).toContain(
      'sender did:web:a:alice would hold at least 10 and recipient did:web:b:bob would hold 90',
    )
    // Moving between one's own holdings changes neither total.
    expect(minHoldingCheck(10, move(95, 'did:web:a:alice'), 100, 100).satisfied).toBe(true)
  })
})

describe('transfer_windows', () => {
  const windows = [
    { seconds: 60, max_volume: 100 },
    { seconds: 86_400, max_volume: 500 },
  ]
  const facts = (a: number, b: number) => ({
    sender_label: 'did:web:a:alice',
    window_volumes: new Map([
      [60, a],
      [86_400, b],
    ]),
  })
  it('one check for every window: at the cap passes, one over names the window and by how much', () => {
    expect(transferWindowsCheck(windows, move(40), facts(60, 460)).satisfied).toBe(true)
    const over = transferWindowsCheck(windows, move(41), facts(60, 460))
    expect(over).toMatchObject({ requirement: 'rule:transfer_windows', satisfied: false })
    expect(over.reason).toBe(
      "sender did:web:a:alice's approved volume in the last 60 s it would be 101 (60 before this transfer), over max_volume 100 by 1; in the last 86400 s it would be 501 (460 before this transfer), over max_volume 500 by 1",
    )
  })
})

describe('lockup_days_after_receipt', () => {
  it('only the units not locked can be sent', () => {
    const locked = { locked: { amount: 30, next_unlock: '2026-02-01T00:00:00.000Z' } }
    expect(lockupAfterReceiptCheck(7, move(70), 100, locked).satisfied).toBe(true)
    expect(lockupAfterReceiptCheck(7, move(71), 100, locked).reason).toBe(
      "30 of the sender's 100 units in US were received in the last 7 days and are locked: only 70 can be sent, 1 fewer than the 71 requested; the next unlock at 2026-02-01T00:00:00.000Z",
    )
  })
})

describe('the rules that are set, and only those, make checks', () => {
  it('none set: no check; all set: lock-up, windows, min holding in that order', () => {
    const ledger = { sender_holding: { amount: 100 }, recipient_balance: 0 }
    expect(holdingRuleChecks(NO_RULES, move(1), ledger, NO_HOLDING_FACTS)).toEqual([])
    const rules = {
      ...NO_RULES,
      min_holding: 1,
      transfer_windows: [{ seconds: 60, max_volume: 5 }],
      lockup_days_after_receipt: 1,
      max_supply: 10,
    }
    expect(holdingRuleChecks(rules, move(1), ledger, NO_HOLDING_FACTS).map((c) => c.requirement)).toEqual([
      'rule:lockup_days_after_receipt',
      'rule:transfer_windows',
      'rule:min_holding',
    ])
  })
})

describe('max_supply', () => {
  it('a mint to the cap passes, one over is over by 1; no cap, no limit', () => {
    expect(maxSupplyDecision(1000, 900, 100)).toEqual({ after: 1000, over: 0, allowed: true })
    expect(maxSupplyDecision(1000, 900, 101)).toEqual({ after: 1001, over: 1, allowed: false })
    expect(maxSupplyDecision(null, 900, 10 ** 12).allowed).toBe(true)
  })
})

describe('buckets', () => {
  it('a window reads every bucket overlapping it: a volume counts for the window and at most a bucket more', () => {
    expect(windowBucketSeconds(30)).toBe(1)
    expect(windowBucketSeconds(3600)).toBe(60)
    const at = 1_000_020 // a multiple of 60
    expect(windowBucketOf(3600, at + 59)).toBe(at)
    // Read at `at + 3600 + 59`, the bucket of `at` still counts; at `at + 3660`, it no longer does.
    expect(windowFirstBucket(3600, at + 3659)).toBeLessThanOrEqual(at)
    expect(windowFirstBucket(3600, at + 3660)).toBeGreaterThan(at)
    // Never less than the window: read at `at + 3600`, a volume at `at` still counts.
    expect(windowFirstBucket(3600, at + 3600)).toBeLessThanOrEqual(windowBucketOf(3600, at))
  })

  it('a receipt unlocks at least the lock-up and at most 1/60 of it later', () => {
    const days = 30
    for (const t of [0, 1, 43_199, 43_200, 1_768_478_400]) {
      const unlock = receivedBy(days, t) + days * 86_400
      expect(unlock).toBeGreaterThan(t + days * 86_400 - 1)
      expect(unlock).toBeLessThanOrEqual(t + days * 86_400 + (days * 86_400) / 60)
    }
  })

  it('takes the units outside the receipts first, then the oldest receipts', () => {
    const receipts = [
      { received_by: 200, amount: 50 },
      { received_by: 100, amount: 30 },
    ]
    // 100 held: 20 outside the receipts.
    expect(takeFirstInFirstOut(receipts, 100, 20)).toEqual([])
    expect(takeFirstInFirstOut(receipts, 100, 40)).toEqual([{ received_by: 100, amount: 10 }])
    expect(takeFirstInFirstOut(receipts, 100, 60)).toEqual([
      { received_by: 100, amount: 0 },
      { received_by: 200, amount: 40 },
    ])
  })
})
