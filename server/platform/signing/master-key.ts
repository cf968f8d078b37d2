import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'
import { closeSync, existsSync, openSync, readFileSync, statSync, writeSync } from 'node:fs'

/*
 * The key-encryption key (README.md, "Signing keys at rest"): every private signing key the database holds is
 * sealed under it with AES-256-GCM, a random 12-byte nonce per key, and the row it belongs to as additional
 * data, so a ciphertext copied into another row does not open. The master key itself never reaches the
 * database or a log: it comes from RWA_MASTER_KEY, --master-key-file, or (SQLite) `<db>.master-key`.
 */

/** The length of a master key: 32 bytes (AES-256), written as 43 base64url characters. */
export const MASTER_KEY_BYTES = 32
export const MASTER_KEY_PATTERN = /^[A-Za-z0-9_-]{43}$/

/**
 * The stored form of a sealed key: this prefix, then base64url of nonce ‖ ciphertext ‖ tag. A legacy
 * plaintext key (base64 of PKCS#8 DER) never contains `:`, so the prefix tells the two apart.
 */
export const SEALED_PREFIX = 'rwa-aes256gcm-v1:'

const NONCE_BYTES = 12
const TAG_BYTES = 16

/** Whether a stored private key is sealed (else it is a legacy plaintext value). */
export const isSealed = (stored: string): boolean => stored.startsWith(SEALED_PREFIX)

/** A stored key that does not open under the master key: wrong master key, or a row tampered with. */
export class SealOpenError extends Error {
  constructor(what: string) {
    super(`${what} cannot be decrypted with this master key`)
    this.name = 'SealOpenError'
  }
}

/** The master key. It seals and opens; it cannot be printed, inspected or serialized. */
export class MasterKey {
  readonly #key: Buffer

  constructor(bytes: Buffer) {
    if (bytes.length !== MASTER_KEY_BYTES) throw new Error(`a master key is ${MASTER_KEY_BYTES} bytes`)
    this.#key = Buffer.from(bytes)
  }

  /** A new random master key. */
  static generate(): MasterKey {
    return new MasterKey(randomBytes(MASTER_KEY_BYTES))
  }

  /** Seals `plaintext` for the row `aad` names: the stored form. */
  seal(plaintext: Buffer, aad: string): string {
    const nonce = randomBytes(NONCE_BYTES)
    const cipher = createCipheriv('aes-256-gcm', this.#key, nonce)
    cipher.setAAD(Buffer.from(aad, 'utf8'))
    const sealed = Buffer.concat([nonce, cipher.update(plaintext), cipher.final(), cipher.getAuthTag()])
    return `${SEALED_PREFIX}${sealed.toString('base64url')}`
  }

  /** Opens a stored form sealed for the row `aad` names; throws SealOpenError naming `what` if it does not. */
  open(stored: string, aad: string, what: string): Buffer {
    if (!isSealed(stored)) throw new SealOpenError(`${what} (stored in plaintext)`)
    const sealed = Buffer.from(stored.slice(SEALED_PREFIX.length), 'base64url')
    if (sealed.length < NONCE_BYTES + TAG_BYTES) throw new SealOpenError(what)
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.#key, sealed.subarray(0, NONCE_BYTES))
      decipher.setAAD(Buffer.from(aad, 'utf8'))
      decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES))
      return Buffer.concat([
        decipher.update(sealed.subarray(NONCE_BYTES, sealed.length - TAG_BYTES)),
        decipher.final(),
      ])
    } catch {
      throw new SealOpenError(what)
    }
  }

  toString(): string {
    return '[master key]'
  }

  toJSON(): string {
    return '[master key]'
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return '[master key]'
  }
}

/** A master key that cannot be used as given; the message names where it came from, never its value. */
export class MasterKeyError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'MasterKeyError'
  }
}

/** The master key written as text (43 base64url characters), from `source` (named in the error). */
export function parseMasterKey(text: string, source: string): MasterKey {
  const trimmed = text.trim()
  if (!MASTER_KEY_PATTERN.test(trimmed)) {
    throw new MasterKeyError(
      `${source} is not a master key: expected ${MASTER_KEY_BYTES} bytes as 43 base64url characters (make one with: openssl rand 32 | basenc --base64url | tr -d =)`,
    )
  }
  return new MasterKey(Buffer.from(trimmed, 'base64url'))
}

/** Reads the master key file at `path`; the error names the file. */
export function readMasterKeyFile(path: string, source = `the master key file ${path}`): MasterKey {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    throw new MasterKeyError(`cannot read ${source}: ${(error as Error).message}`)
  }
  return parseMasterKey(text, source)
}

/**
 * Creates a new master key file at `path`, readable by its owner alone (0600); refuses to replace one
 * (`wx`): a second start racing the first must not overwrite the key the first one used.
 */
export function createMasterKeyFile(path: string): MasterKey {
  const key = randomBytes(MASTER_KEY_BYTES)
  const fd = openSync(path, 'wx', 0o600)
  try {
    writeSync(fd, `${key.toString('base64url')}\n`)
  } finally {
    closeSync(fd)
  }
  return new MasterKey(key)
}

/** Whether `path` exists as a file. */
export const fileExists = (path: string): boolean => existsSync(path) && statSync(path).isFile()
