import { describe, expect, it } from 'vitest'
import { approvalStatusAt } from '../../../server/areas/approvals/rules.js'

describe('the status an approval reads', () => {
  const row = {
    status: 'pending' as const,
    expires_at: '2026-11-25T10:00:00.000Z',
    requester_expires_at: null as string | null,
  }

  it('a stored decision reads as stored', () => {
    for (const status of ['approved', 'rejected', 'failed', 'cancelled'] as const) {
      expect(approvalStatusAt({ ...row, status }, '2026-12-31T00:00:00.000Z')).toBe(status)
    }
  })

  it('a pending row ends at its expires_at (expired) or sooner at its requester’s expiry (cancelled)', () => {
    expect(approvalStatusAt(row, '2026-11-25T09:59:59.999Z')).toBe('pending')
    expect(approvalStatusAt(row, '2026-11-25T10:00:00.000Z')).toBe('expired')
    const soon = { ...row, requester_expires_at: '2026-11-23T10:00:00.000Z' }
    expect(approvalStatusAt(soon, '2026-11-23T09:59:59.999Z')).toBe('pending')
    expect(approvalStatusAt(soon, '2026-11-23T10:00:00.000Z')).toBe('cancelled')
    expect(approvalStatusAt(soon, '2026-11-26T00:00:00.000Z')).toBe('cancelled')
    // A requester's key that outlives the approval: it expires first.
    const late = { ...row, requester_expires_at: '2026-11-25T10:00:00.000Z' }
    expect(approvalStatusAt(late, '2026-11-26T00:00:00.000Z')).toBe('expired')
  })
})
