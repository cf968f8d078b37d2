import { describe, expect, it } from 'vitest'
import { EVENT_TYPES } from '../../../src/contract/events.js'
import { AGGREGATES } from '../../../server/aggregates.js'
import { createAppContext } from '../../../server/pipeline/context.js'
import { MasterKey } from '../../../server/platform/signing/master-key.js'
import { emptyDatabasePerTest } from '../../support/empty-database.js'

/*
 * The aggregates' records as the write pipeline knows them (server/aggregates.ts, docs/architecture.md,
 * "One seam for every write"): the event of every change a write makes reads its record through the
 * reader its aggregate registered (test/server/events/events.test.ts checks each against GET).
 */

const openEmpty = emptyDatabasePerTest()

/** The kind of record an event type's changes name (`holder.frozen` changes a token). */
const recordOf = (type: string) => {
  const resource = type.split('.')[0] as string
  return resource === 'holder' ? 'token' : resource
}

describe('aggregates registered with the write pipeline', () => {
  it('register a reader for the record of every event type a change makes', async () => {
    const ctx = createAppContext({
      db: await openEmpty(),
      aggregates: AGGREGATES,
      masterKey: MasterKey.generate(),
    })
    // `trial.ending` and `limit.reached` come from the server's job and its limits, not from a change.
    const changed = EVENT_TYPES.filter((t) => t !== 'trial.ending' && t !== 'limit.reached').map(recordOf)
    expect([...new Set(changed)].filter((kind) => !ctx.records.has(kind))).toEqual([])
  })

  it('refuses two aggregates registering the same kind of record', async () => {
    const db = await openEmpty()
    const twice = [...AGGREGATES, { objects: { token: async () => undefined } }]
    expect(() => createAppContext({ db, aggregates: twice, masterKey: MasterKey.generate() })).toThrow(
      'records of type token are registered twice',
    )
  })
})
