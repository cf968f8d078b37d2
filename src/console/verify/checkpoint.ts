import canonicalizeModule from 'canonicalize'
import { ed25519Verify, equalBytes, fromBase64, sha256, utf8 } from './bytes.js'

/*
 * The transparency log verified in the page (docs/console.md, "Verified in the browser"): a C2SP signed
 * note carrying a tlog checkpoint, checked with WebCrypto against the log key of the organization's
 * trust bundle (`<origin>+<hex key id>+<base64(0x01 || Ed25519 key)>`), and RFC 9162 inclusion proofs of
 * its entries against the checkpoint's root. The same rules as `rwa log verify` (src/tlog/note.ts,
 * src/tlog/merkle.ts), written again over WebCrypto.
 */

const canonicalize = ((canonicalizeModule as unknown as { default?: unknown }).default ??
  canonicalizeModule) as (input: unknown) => string | undefined

export interface VerifiedCheckpoint {
  origin: string
  size: number
  root: Uint8Array<ArrayBuffer>
}

export type CheckpointVerdict =
  | { holds: true; checkpoint: VerifiedCheckpoint }
  | { holds: false; reason: string }

const ED25519 = 0x01

async function keyIdOf(name: string, publicKey: Uint8Array): Promise<Uint8Array> {
  return (await sha256(utf8(`${name}\n`), new Uint8Array([ED25519]), publicKey)).subarray(0, 4)
}

/** The checkpoint of `note`, if a signature by `vkey` over it verifies and its origin is the key's name. */
export async function verifyCheckpointInPage(note: string, vkey: string): Promise<CheckpointVerdict> {
  const fail = (reason: string): CheckpointVerdict => ({ holds: false, reason })
  const first = vkey.indexOf('+')
  const second = vkey.indexOf('+', first + 1)
  if (first <= 0 || second < 0) return fail('the log key is not a note verifier key')
  const name = vkey.slice(0, first)
  const hexId = vkey.slice(first + 1, second)
  const raw = fromBase64(vkey.slice(second + 1))
  if (!/^[0-9a-f]{8}$/.test(hexId) || !raw || raw.length !== 33 || raw[0] !== ED25519) {
    return fail('the log key is not an Ed25519 note verifier key')
  }
  const publicKey = raw.slice(1)
  const keyId = await keyIdOf(name, publicKey)
  if (Array.from(keyId, (b) => b.toString(16).padStart(2, '0')).join('') !== hexId) {
    return fail('the log key’s id does not match its name and key')
  }

  const split = note.lastIndexOf('\n\n')
  if (split < 0 || !note.endsWith('\n')) return fail('the checkpoint is not a signed note')
  const text = note.slice(0, split + 1)
  let signed = false
  for (const line of note.slice(split + 2, -1).split('\n')) {
    const match = /^\u2014 (\S+) (\S+)$/u.exec(line)
    const blob = match ? fromBase64(match[2] as string) : undefined
    if (!match || !blob || blob.length < 5) return fail(`malformed signature line ${JSON.stringify(line)}`)
    if (match[1] !== name || !equalBytes(blob.subarray(0, 4), keyId)) continue
    if (await ed25519Verify(publicKey, blob.slice(4), utf8(text))) signed = true
  }
  if (!signed) return fail(`no signature by the log key ${name} verifies`)

  const lines = text.split('\n')
  const [origin, sizeLine, rootLine] = lines
  if (lines.length < 4 || !origin) return fail('the note is not a checkpoint')
  if (origin !== name) return fail(`the checkpoint's origin ${origin} is not the log key's name ${name}`)
  if (!sizeLine || !/^(0|[1-9][0-9]{0,15})$/.test(sizeLine))
    return fail('the checkpoint size is not a number')
  const root = fromBase64(rootLine ?? '')
  if (root?.length !== 32) return fail('the checkpoint root is not a base64 SHA-256 hash')
  return { holds: true, checkpoint: { origin, size: Number(sizeLine), root } }
}

const hashChildren = (left: Uint8Array, right: Uint8Array) => sha256(new Uint8Array([0x01]), left, right)

/** RFC 9162 leaf hash of an audit event: its canonical JSON without `log_index`. */
export async function eventLeafHash(event: Record<string, unknown>): Promise<Uint8Array<ArrayBuffer>> {
  const { log_index: _position, ...rest } = event
  const canonical = canonicalize(rest)
  if (canonical === undefined) throw new Error('the event cannot be canonicalized')
  return sha256(new Uint8Array([0x00]), utf8(canonical))
}

/**
 * RFC 9162 §2.1.3.2: whether `proof` (base64 hashes) leads from `leafHash` at `index` to `root` of a
 * tree of `size` leaves; the reason when it does not.
 */
export async function inclusionHolds(
  index: number,
  size: number,
  leafHash: Uint8Array,
  proof: readonly string[],
  root: Uint8Array,
): Promise<string | undefined> {
  if (!(index >= 0 && index < size)) return `index ${index} is not below tree size ${size}`
  let fn = index
  let sn = size - 1
  let r: Uint8Array = leafHash
  for (const encoded of proof) {
    const p = fromBase64(encoded)
    if (p?.length !== 32) return 'a proof hash is not 32 bytes of base64'
    if (sn === 0) return 'the inclusion proof is too long'
    if (fn % 2 === 1 || fn === sn) {
      r = await hashChildren(p, r)
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2)
          sn = Math.floor(sn / 2)
        }
      }
    } else {
      r = await hashChildren(r, p)
    }
    fn = Math.floor(fn / 2)
    sn = Math.floor(sn / 2)
  }
  if (sn !== 0) return 'the inclusion proof is too short'
  return equalBytes(r, root) ? undefined : `entry ${index} is not in the tree of size ${size} with that root`
}
