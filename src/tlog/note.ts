import { createHash, createPublicKey, type KeyObject, sign, verify } from 'node:crypto'

/*
 * C2SP signed notes (signed-note.md) carrying C2SP checkpoints (tlog-checkpoint.md), Ed25519 only:
 *
 *     <origin>\n<tree size>\n<base64 root hash>\n\n— <key name> <base64(key ID || signature)>\n
 *
 * The signature is over the note's text (the lines before the blank line, each ending in \n). The key
 * ID is the first 4 bytes of SHA-256(key name || 0x0A || 0x01 || public key), 0x01 being Ed25519's
 * signature type; a verifier key is `<name>+<hex key ID>+<base64(0x01 || public key)>`. Any tool that
 * reads Go's golang.org/x/mod/sumdb/note or C2SP checkpoints reads these.
 */

/** Why a note or checkpoint does not hold. */
export class NoteError extends Error {}

export interface Checkpoint {
  origin: string
  size: number
  /** The root hash, 32 bytes. */
  root: Buffer
}

export interface NoteSignature {
  name: string
  keyId: Buffer
  signature: Buffer
}

export interface VerifierKey {
  name: string
  keyId: Buffer
  /** The raw 32-byte Ed25519 public key. */
  publicKey: Buffer
}

const ED25519 = 0x01
const SIGNATURE_PREFIX = '\u2014 '

/** The C2SP key ID of an Ed25519 key named `name`. */
export const noteKeyId = (name: string, publicKey: Buffer): Buffer =>
  createHash('sha256')
    .update(Buffer.from(`${name}\n`, 'utf8'))
    .update(Buffer.from([ED25519]))
    .update(publicKey)
    .digest()
    .subarray(0, 4)

const validName = (name: string): boolean => name.length > 0 && !/[\s+]/u.test(name)

/** `<name>+<hex key ID>+<base64(0x01 || public key)>`. */
export function verifierKey(name: string, publicKey: Buffer): string {
  if (!validName(name)) throw new NoteError(`a key name has no spaces or '+': ${JSON.stringify(name)}`)
  return `${name}+${noteKeyId(name, publicKey).toString('hex')}+${Buffer.concat([Buffer.from([ED25519]), publicKey]).toString('base64')}`
}

export function parseVerifierKey(vkey: string): VerifierKey {
  // The base64 key may itself contain '+': split at the first two only.
  const first = vkey.indexOf('+')
  const second = vkey.indexOf('+', first + 1)
  const [name, hexId, key] =
    first < 0 || second < 0
      ? []
      : [vkey.slice(0, first), vkey.slice(first + 1, second), vkey.slice(second + 1)]
  if (!name || !hexId || !key || !validName(name) || !/^[0-9a-f]{8}$/.test(hexId)) {
    throw new NoteError(`not a note verifier key <name>+<hex key id>+<base64 key>: ${JSON.stringify(vkey)}`)
  }
  const raw = Buffer.from(key, 'base64')
  if (raw.length !== 33 || raw[0] !== ED25519 || raw.toString('base64') !== key) {
    throw new NoteError(`verifier key ${name} is not an Ed25519 key`)
  }
  const publicKey = raw.subarray(1)
  const keyId = Buffer.from(hexId, 'hex')
  if (!keyId.equals(noteKeyId(name, publicKey))) {
    throw new NoteError(`verifier key ${name}: its key ID does not match its name and key`)
  }
  return { name, keyId, publicKey }
}

/** The text of a checkpoint: origin, size, base64 root, each line ending in a newline. */
export function checkpointText({ origin, size, root }: Checkpoint): string {
  if (!validOrigin(origin)) throw new NoteError(`invalid checkpoint origin ${JSON.stringify(origin)}`)
  return `${origin}\n${size}\n${root.toString('base64')}\n`
}

const validOrigin = (origin: string): boolean => origin.length > 0 && !origin.includes('\n')

/** Signs `text` as a note with an Ed25519 private key named `name`. */
export function signNote(text: string, name: string, privateKey: KeyObject): string {
  const publicKey = rawPublicKey(privateKey)
  const signature = sign(null, Buffer.from(text, 'utf8'), privateKey)
  const blob = Buffer.concat([noteKeyId(name, publicKey), signature]).toString('base64')
  return `${text}\n${SIGNATURE_PREFIX}${name} ${blob}\n`
}

/** The raw 32 bytes of an Ed25519 key's public half. */
export function rawPublicKey(key: KeyObject): Buffer {
  const x = (key.type === 'private' ? createPublicKey(key) : key).export({ format: 'jwk' }).x
  if (typeof x !== 'string') throw new Error('not an Ed25519 key')
  return Buffer.from(x, 'base64url')
}

/** Splits a signed note into its text and signature lines, refusing anything malformed. */
export function parseNote(note: string): { text: string; signatures: NoteSignature[] } {
  const split = note.lastIndexOf('\n\n')
  if (split < 0 || !note.endsWith('\n'))
    throw new NoteError('a signed note is text, a blank line and signature lines')
  const text = note.slice(0, split + 1)
  const signatures: NoteSignature[] = []
  for (const line of note.slice(split + 2, -1).split('\n')) {
    const match = /^\u2014 (\S+) (\S+)$/u.exec(line)
    const blob = match ? Buffer.from(match[2] as string, 'base64') : undefined
    if (!match || !blob || blob.length < 5 || blob.toString('base64') !== match[2]) {
      throw new NoteError(`malformed note signature line ${JSON.stringify(line)}`)
    }
    signatures.push({ name: match[1] as string, keyId: blob.subarray(0, 4), signature: blob.subarray(4) })
  }
  if (signatures.length === 0) throw new NoteError('the note has no signature')
  return { text, signatures }
}

/** Parses a checkpoint's text (origin, size, root; extension lines are allowed and ignored). */
export function parseCheckpointText(text: string): Checkpoint {
  const lines = text.split('\n')
  const [origin, sizeLine, rootLine] = lines
  if (lines.length < 4 || lines[lines.length - 1] !== '' || !origin || !validOrigin(origin)) {
    throw new NoteError('a checkpoint is an origin line, a size line and a root line')
  }
  if (!sizeLine || !/^(0|[1-9][0-9]{0,15})$/.test(sizeLine) || !Number.isSafeInteger(Number(sizeLine))) {
    throw new NoteError(`checkpoint size ${JSON.stringify(sizeLine)} is not a decimal integer`)
  }
  const root = Buffer.from(rootLine ?? '', 'base64')
  if (root.length !== 32 || root.toString('base64') !== rootLine) {
    throw new NoteError('checkpoint root is not a base64 32-byte hash')
  }
  return { origin, size: Number(sizeLine), root }
}

/**
 * The checkpoint a signed note carries, read before any signature is checked: so that what was signed
 * (its origin) chooses the key and the state a verifier applies, never a field sent beside the note.
 * It holds nothing until `verifyCheckpoint` says so.
 */
export const unverifiedCheckpoint = (note: string): Checkpoint => parseCheckpointText(parseNote(note).text)

/** Signs a checkpoint. */
export const signCheckpoint = (checkpoint: Checkpoint, name: string, privateKey: KeyObject): string =>
  signNote(checkpointText(checkpoint), name, privateKey)

/**
 * The text of a signed note, once a signature by `key` over it verifies; signatures by other keys are
 * ignored (a witness may cosign). Throws NoteError otherwise.
 */
export function verifyNote(note: string, key: VerifierKey | string): string {
  const vkey = typeof key === 'string' ? parseVerifierKey(key) : key
  const { text, signatures } = parseNote(note)
  const ours = signatures.filter((s) => s.name === vkey.name && s.keyId.equals(vkey.keyId))
  if (ours.length === 0) {
    throw new NoteError(`the note is not signed by the log key ${vkey.name}+${vkey.keyId.toString('hex')}`)
  }
  const publicKey = createPublicKey({
    key: { kty: 'OKP', crv: 'Ed25519', x: vkey.publicKey.toString('base64url') },
    format: 'jwk',
  })
  if (!ours.some((s) => verify(null, Buffer.from(text, 'utf8'), publicKey, s.signature))) {
    throw new NoteError(`the note's signature by ${vkey.name} does not verify`)
  }
  return text
}

/** The checkpoint of a signed note, once its signature by `key` verifies and its origin is the key's name. */
export function verifyCheckpoint(note: string, key: VerifierKey | string): Checkpoint {
  const vkey = typeof key === 'string' ? parseVerifierKey(key) : key
  const checkpoint = parseCheckpointText(verifyNote(note, vkey))
  if (checkpoint.origin !== vkey.name) {
    throw new NoteError(`the checkpoint's origin ${checkpoint.origin} is not the log key's name ${vkey.name}`)
  }
  return checkpoint
}
