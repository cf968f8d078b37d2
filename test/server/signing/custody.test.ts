import { inspect } from 'node:util'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openKeyCustody, WrongMasterKeyError } from '../../../server/custody.js'
import { MasterKey, SealOpenError } from '../../../server/platform/signing/master-key.js'
import { SG, US, expectStatus } from '../../support/governance.js'
import { createHarness, everyStoredRow, type Harness } from '../../support/harness.js'

/*
 * Sealed keys (README.md, "Signing keys at rest") in process, on both databases: a ciphertext opens only in
 * its own row, and a master key that is not the database's is refused before anything changes.
 */

let h: Harness
beforeEach(async () => {
  h = await createHarness()
  await expectStatus(h.post('/console/rwa/jurisdictions', US), 201)
  await expectStatus(h.post('/console/rwa/jurisdictions', SG), 201)
})
afterEach(() => h.close())

const names = { where: 'the test storage', source: 'another key' }
const jurisdictionRows = () =>
  h.ctx.db.selectFrom('jurisdictions').selectAll().orderBy('jurisdiction_id').execute()

describe('sealed signing keys', () => {
  it("a jurisdiction's sealed key moved into another row does not open there", async () => {
    const [sg, us] = await jurisdictionRows()
    // In its own row it opens (a fresh instance: nothing cached).
    const fresh = await h.newInstance()
    expect(() => fresh.ctx.signingKeys.issuerKey(us!)).not.toThrow()
    // SG's ciphertext in US's row: the additional data (organization, jurisdiction, DID) differs.
    const other = await h.newInstance()
    expect(() => other.ctx.signingKeys.issuerKey({ ...us!, private_key: sg!.private_key })).toThrow(
      SealOpenError,
    )
    // The same row in another organization does not open either.
    expect(() => other.ctx.signingKeys.issuerKey({ ...us!, org_id: 'someone-else' })).toThrow(
      /cannot be decrypted with this master key/,
    )
  })

  it('another master key is refused by the check value, changing nothing; so is one that opens no sealed key', async () => {
    const before = await everyStoredRow(h)
    const other = MasterKey.generate()
    await expect(openKeyCustody(h.ctx.db, other, h.clock, names)).rejects.toThrow(WrongMasterKeyError)
    await expect(openKeyCustody(h.ctx.db, other, h.clock, names)).rejects.toThrow(
      'the master key (another key) is not the one the signing keys of the test storage are encrypted with (its check value does not decrypt); nothing was changed',
    )
    expect(await everyStoredRow(h)).toBe(before)
    // Without its check value (a start that stopped before storing it), the sealed keys still tell.
    await h.ctx.db.deleteFrom('key_custody').execute()
    const withoutCheck = await everyStoredRow(h)
    await expect(openKeyCustody(h.ctx.db, other, h.clock, names)).rejects.toThrow(/cannot be decrypted/)
    expect(await everyStoredRow(h)).toBe(withoutCheck)
    // The right key stores the check value again.
    expect(await openKeyCustody(h.ctx.db, h.masterKey, h.clock, names)).toEqual({
      sealed: 0,
      webhookSecrets: 0,
    })
    expect(await h.ctx.db.selectFrom('key_custody').selectAll().execute()).toHaveLength(1)
  })

  it('a master key never shows its bytes: not as JSON, text or inspection', () => {
    const bytes = Buffer.alloc(32, 0x5a)
    const key = new MasterKey(bytes)
    for (const shown of [JSON.stringify({ key }), String(key), inspect(key), inspect({ key })]) {
      expect(shown).not.toContain(bytes.toString('base64url'))
      expect(shown).not.toContain(bytes.toString('hex'))
      expect(shown).toContain('[master key]')
    }
  })
})
