import { isoTimestamp, type Clock } from './platform/clock.js'
import type { Db } from './platform/db/database.js'
import { plaintextEndpointSecrets, replaceEndpointSecret } from './areas/webhooks/queries.js'
import { sealWebhookSecret } from './areas/webhooks/secret-custody.js'
import {
  createMasterKeyFile,
  fileExists,
  MasterKey,
  MasterKeyError,
  parseMasterKey,
  readMasterKeyFile,
  SealOpenError,
} from './platform/signing/master-key.js'
import {
  findKeyCheck,
  insertKeyCheckIfAbsent,
  plaintextJurisdictionKeys,
  plaintextServiceKeys,
  replaceJurisdictionPrivate,
  replaceServiceKeyPrivate,
  sealedKeySamples,
} from './platform/signing/queries.js'
import { jurisdictionKeyAad, serviceKeyAad } from './platform/signing/signing-keys.js'

/*
 * Key custody at start (README.md, "Signing keys at rest"): which master key, whether it is the database's,
 * and sealing the keys of a database from before encryption. A start that fails here has changed nothing and
 * made no key: it runs before the admin key or any signing key is created.
 */

const CHECK_AAD = JSON.stringify(['key_custody', 'master_key_check'])
const CHECK_PLAINTEXT = Buffer.from('rwa master key check', 'utf8')

/** The database holds keys sealed under another master key (or the check value does not open). */
export class WrongMasterKeyError extends Error {
  constructor(where: string, source: string, detail: string) {
    super(
      `the master key (${source}) is not the one the signing keys of ${where} are encrypted with (${detail}); nothing was changed`,
    )
    this.name = 'WrongMasterKeyError'
  }
}

/** Where the master key comes from: what the configuration names, or the SQLite default file. */
export interface MasterKeySource {
  /** RWA_MASTER_KEY's value. */
  masterKey?: string | undefined
  /** --master-key-file / RWA_MASTER_KEY_FILE. */
  masterKeyFile?: string | undefined
  /** The SQLite file (`:memory:` included); absent over PostgreSQL. */
  sqlitePath?: string | undefined
}

/** The default master key file of a SQLite database: beside it. */
export const defaultMasterKeyFile = (dbPath: string) => `${dbPath}.master-key`

/**
 * The master key the configuration names; with SQLite and none named, `<db>.master-key`, created (0600)
 * on a database that holds no sealed key yet. A database that does hold them and lost its file is
 * refused: a new key would not open them. Returns `source` to name in messages and `created` when a
 * new file was written (the caller says so once: it must be backed up).
 */
export async function resolveMasterKey(
  db: Db,
  source: MasterKeySource,
): Promise<{ key: MasterKey; source: string; created?: string }> {
  if (source.masterKey !== undefined) {
    return { key: parseMasterKey(source.masterKey, 'RWA_MASTER_KEY'), source: 'RWA_MASTER_KEY' }
  }
  if (source.masterKeyFile !== undefined) {
    const name = `the master key file ${source.masterKeyFile} (--master-key-file)`
    return { key: readMasterKeyFile(source.masterKeyFile, name), source: name }
  }
  if (source.sqlitePath === undefined) {
    throw new MasterKeyError(
      'RWA_MASTER_KEY (or --master-key-file): required with RWA_DATABASE_URL: the signing keys are encrypted under it',
    )
  }
  // A throwaway database keeps its keys no longer than the process: so does its master key.
  if (source.sqlitePath === ':memory:') return { key: MasterKey.generate(), source: 'a key of this process' }
  const path = defaultMasterKeyFile(source.sqlitePath)
  const name = `the master key file ${path}`
  if (fileExists(path)) return { key: readMasterKeyFile(path, name), source: name }
  if (await holdsSealedKeys(db)) {
    throw new MasterKeyError(
      `the database ${source.sqlitePath} holds signing keys encrypted under a master key, and ${path} does not exist: restore that file beside the database, or give RWA_MASTER_KEY or --master-key-file; nothing was changed`,
    )
  }
  return { key: createMasterKeyFile(path), source: name, created: path }
}

async function holdsSealedKeys(db: Db): Promise<boolean> {
  if ((await findKeyCheck(db)) !== undefined) return true
  const { service, jurisdiction } = await sealedKeySamples(db)
  return service !== undefined || jurisdiction !== undefined
}

/**
 * Checks that `masterKey` is the database's, then seals in place (one transaction) every key still
 * stored in plaintext, and stores the check value on a database that has none. Throws
 * WrongMasterKeyError, having changed nothing, when a sealed value does not open. Returns how many keys
 * it sealed, and how many webhook signing secrets (stored in plaintext before they were sealed too).
 */
export async function openKeyCustody(
  db: Db,
  masterKey: MasterKey,
  clock: Clock,
  names: { where: string; source: string },
): Promise<{ sealed: number; webhookSecrets: number }> {
  const wrong = (detail: string) => new WrongMasterKeyError(names.where, names.source, detail)
  const opensCheck = (check: string) => {
    try {
      masterKey.open(check, CHECK_AAD, 'the check value')
    } catch (error) {
      if (error instanceof SealOpenError) throw wrong('its check value does not decrypt')
      throw error
    }
  }
  const check = await findKeyCheck(db)
  if (check !== undefined) opensCheck(check)
  else {
    // No check value yet, but sealed keys (sealed by a start that stopped before storing one): they
    // must open too.
    const { service, jurisdiction } = await sealedKeySamples(db)
    try {
      if (service) masterKey.open(service.private_key, serviceKeyAad(service), `service key ${service.kid}`)
      if (jurisdiction) {
        masterKey.open(
          jurisdiction.private_key,
          jurisdictionKeyAad(jurisdiction),
          `the key of jurisdiction ${jurisdiction.jurisdiction_id}`,
        )
      }
    } catch (error) {
      if (error instanceof SealOpenError) throw wrong(error.message)
      throw error
    }
  }
  const sealed = await db.transaction().execute(async (trx) => {
    if (check === undefined) {
      await insertKeyCheckIfAbsent(trx, masterKey.seal(CHECK_PLAINTEXT, CHECK_AAD), isoTimestamp(clock.now()))
      // Another instance starting at the same moment may have stored its check value first: it must
      // be ours, or this transaction seals nothing.
      opensCheck((await findKeyCheck(trx))!)
    }
    let count = 0
    for (const row of await plaintextServiceKeys(trx)) {
      const sealedKey = masterKey.seal(Buffer.from(row.private_key, 'base64'), serviceKeyAad(row))
      await replaceServiceKeyPrivate(trx, row.kid, row.private_key, sealedKey)
      count++
    }
    for (const row of await plaintextJurisdictionKeys(trx)) {
      const sealedKey = masterKey.seal(Buffer.from(row.private_key, 'base64'), jurisdictionKeyAad(row))
      await replaceJurisdictionPrivate(trx, row, row.private_key, sealedKey)
      count++
    }
    let secrets = 0
    for (const row of await plaintextEndpointSecrets(trx)) {
      const sealedSecret = sealWebhookSecret(masterKey, row.webhook_id, row.secret)
      await replaceEndpointSecret(trx, row.webhook_id, row.secret, sealedSecret)
      secrets++
    }
    return { keys: count, secrets }
  })
  return { sealed: sealed.keys, webhookSecrets: sealed.secrets }
}
