import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { buildWorld, expectStatus, transferBody, type World } from '../../../support/governance.js'
import { builtDuring } from '../../../support/built-statements.js'
import { createHarness, type Harness } from '../../../support/harness.js'

/*
 * A transfer POST's statements, its write's records (audit event, log leaf and nodes, outbox event)
 * included, are compiled once: after the first transfers, one more builds none with kysely
 * (docs/performance.md, "Fourth pass: the writes"), approved or refused.
 */

let h: Harness
let w: World
beforeEach(async () => {
  h = await createHarness()
  w = await buildWorld(h)
})
afterEach(() => {
  vi.restoreAllMocks()
  return h.close()
})

const transfer = (recipient?: string) =>
  h.post('/console/rwa/transfers', transferBody(w.tokenId, 1, recipient ? { recipient_did: recipient } : {}))

describe('POST /console/rwa/transfers, its statements', () => {
  it('builds no statement with kysely once the first transfers have compiled them, approved or refused', async () => {
    // The first append of each count of log nodes compiles its insert: 32 transfers see up to six.
    for (let i = 0; i < 32; i++) await expectStatus(transfer(), 201)
    // Sixteen in a row: one of them appends the last leaf of sixteen (five nodes or more).
    for (let i = 0; i < 16; i++) expect(await builtDuring(() => expectStatus(transfer(), 201))).toEqual([])
    // A recipient with none of the attestations SG asks: refused, its proof and records written all the same.
    const refused = await expectStatus(transfer('did:web:statements:unattested'), 201)
    expect(refused.status).toBe('rejected')
    expect(await builtDuring(() => expectStatus(transfer('did:web:statements:unattested'), 201))).toEqual([])
  })
})
