import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createHarness, type Harness } from '../../support/harness.js'
import {
  buildWorld,
  expectStatus,
  GOVERNANCE_LISTS,
  transferBody,
  type World,
} from '../../support/governance.js'

/*
 * A cursor is the next_cursor of a previous page of the same list. Anything else (malformed, or taken
 * from another list) is a 400 naming `cursor`, like any other bad query parameter; before, it read as
 * a position and answered an empty page (`{"transfers":[],"total":4,"next_cursor":null}`, 200).
 */

let h: Harness
let world: World
beforeEach(async () => {
  h = await createHarness()
  world = await buildWorld(h)
  await expectStatus(h.post('/console/rwa/transfers', transferBody(world.tokenId, 10)), 201)
  await expectStatus(h.post('/console/rwa/transfers', transferBody(world.tokenId, 20)), 201)
})
afterEach(() => h.close())

const LISTS = GOVERNANCE_LISTS

/** The next_cursor of a one-item first page of `path` (every list here has at least two rows but tokens). */
async function cursorOf(path: string): Promise<string | null> {
  return (await expectStatus(h.get(path, { query: { limit: 1 } }), 200)).next_cursor
}

describe('cursor', () => {
  it.each(LISTS)('%s refuses a malformed cursor with 400 naming cursor', async (path) => {
    for (const cursor of ['garbage', 'tx_', 'tx_zzzzzzzzzzzzzzzzzzzzzzzzzz', `${world.credentialId}x`, ' ']) {
      const res = await h.get(path, { query: { cursor } })
      expect(res.status, `${path} ${cursor}`).toBe(400)
      expect(res.body).toMatchObject({ code: 'invalid_request', errors: [{ path: 'cursor' }] })
    }
  })

  it.each(LISTS)("%s refuses another list's cursor", async (path) => {
    const foreign = path === '/console/rwa/credentials' ? world.tokenId : world.credentialId
    const res = await h.get(path, { query: { cursor: foreign } })
    expect(res.status).toBe(400)
    expect(res.body.errors).toEqual([{ path: 'cursor', message: expect.stringMatching(/next_cursor/) }])
  })

  it.each(LISTS)('%s follows its own next_cursor to the end, every row once', async (path, plural) => {
    const all = (await expectStatus(h.get(path, { query: { limit: 500 } }), 200))[plural]
    const seen: unknown[] = []
    let cursor: string | undefined
    do {
      const page = await expectStatus(h.get(path, { query: { limit: 1, cursor } }), 200)
      seen.push(...page[plural])
      cursor = page.next_cursor ?? undefined
    } while (cursor !== undefined)
    expect(seen).toEqual(all)
  })

  it('the transfers list of the finding: a malformed cursor is no longer an empty page', async () => {
    expect(await cursorOf('/console/rwa/transfers')).toMatch(/^tx_/)
    const res = await h.get('/console/rwa/transfers', { query: { cursor: 'not-a-cursor' } })
    expect(res.status).toBe(400)
    expect(res.body.detail).toMatch(/^Invalid query: cursor: expected the next_cursor of a previous page/)
  })
})
