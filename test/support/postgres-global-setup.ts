import { openPostgres } from '../../server/platform/db/database.js'
import {
  createTemplateDatabase,
  databaseNamePrefix,
  deleteRedisKeys,
  dropDatabasesOfRun,
  redisPrefixOfRun,
  templateDatabaseName,
} from './backends.js'

/** Before the `postgres` project: the migrated template every test's database is copied from. */
export async function setup(): Promise<void> {
  await createTemplateDatabase(async (url) => {
    const db = await openPostgres(url)
    await db.destroy()
  })
}

/**
 * After the `postgres` project: every test drops its database and deletes its Redis keys itself; this
 * removes what a test that crashed before its cleanup left, and says so.
 */
export async function teardown(): Promise<void> {
  const dropped = (await dropDatabasesOfRun()).filter((name) => name !== templateDatabaseName())
  await deleteRedisKeys(`${redisPrefixOfRun()}*`)
  if (dropped.length > 0) {
    console.log(`dropped ${dropped.length} database(s) left by this run (${databaseNamePrefix()}*)`)
  }
}
