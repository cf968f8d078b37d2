import { createHash, createPrivateKey, generateKeyPairSync } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import {
  checkpointText,
  NoteError,
  noteKeyId,
  parseVerifierKey,
  rawPublicKey,
  signCheckpoint,
  signNote,
  verifierKey,
  verifyCheckpoint,
  verifyNote,
} from '../../src/tlog/note.js'

/*
 * C2SP signed notes and checkpoints: the key ID and verifier key encodings, the exact text, and every
 * way a checkpoint can fail to be the log's.
 */

const origin = 'rwa.example.com/console/audit/acme'
const root = createHash('sha256').update('root').digest()
const { privateKey } = generateKeyPairSync('ed25519')
const vkey = verifierKey(origin, rawPublicKey(privateKey))

const refused = (check: () => unknown): string => {
  try {
    check()
  } catch (error) {
    if (error instanceof NoteError) return error.message
    throw error
  }
  throw new Error('expected a NoteError')
}

describe('C2SP signed-note checkpoints', () => {
  it('the key ID is the first 4 bytes of SHA-256(name, newline, 0x01, key)', () => {
    const key = Buffer.alloc(32, 7)
    const want = createHash('sha256')
      .update(Buffer.concat([Buffer.from('example.com/log\n'), Buffer.from([1]), key]))
      .digest()
      .subarray(0, 4)
    expect(noteKeyId('example.com/log', key).equals(want)).toBe(true)
    const v = verifierKey('example.com/log', key)
    expect(v).toBe(
      `example.com/log+${want.toString('hex')}+${Buffer.concat([Buffer.from([1]), key]).toString('base64')}`,
    )
    expect(parseVerifierKey(v).publicKey.equals(key)).toBe(true)
  })

  it("reproduces golang.org/x/mod/sumdb/note's published example byte for byte", () => {
    // The Go note package's documented signer key (PRIVATE+KEY+PeterNeumann+c74f20a3+<0x01 || seed>),
    // its verifier key, text and signed note.
    const seed = Buffer.from('AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz', 'base64').subarray(1)
    const goKey = createPrivateKey({
      key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]),
      format: 'der',
      type: 'pkcs8',
    })
    const goVkey = 'PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW'
    const text =
      "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n"
    const signed = `${text}\n\u2014 PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n`
    expect(verifierKey('PeterNeumann', rawPublicKey(goKey))).toBe(goVkey)
    expect(signNote(text, 'PeterNeumann', goKey)).toBe(signed)
    expect(verifyNote(signed, goVkey)).toBe(text)
    expect(refused(() => verifyNote(signed.replace('problem,', 'problem;'), goVkey))).toMatch(
      /does not verify/,
    )
  })

  it('signs a checkpoint in the C2SP format and verifies it', () => {
    const note = signCheckpoint({ origin, size: 42, root }, origin, privateKey)
    const lines = note.split('\n')
    expect(lines.slice(0, 4)).toEqual([origin, '42', root.toString('base64'), ''])
    expect(lines[4]).toMatch(new RegExp(`^\u2014 ${origin} [A-Za-z0-9+/]+=*$`))
    expect(Buffer.from(lines[4]?.split(' ')[2] ?? '', 'base64').length).toBe(4 + 64)
    expect(note.endsWith('\n')).toBe(true)
    const checkpoint = verifyCheckpoint(note, vkey)
    expect(checkpoint).toEqual({ origin, size: 42, root })
    expect(checkpointText(checkpoint)).toBe(`${lines.slice(0, 3).join('\n')}\n`)
  })

  it('refuses an edited size, root or origin, another key, and malformed notes', () => {
    const note = signCheckpoint({ origin, size: 42, root }, origin, privateKey)
    expect(refused(() => verifyCheckpoint(note.replace('\n42\n', '\n41\n'), vkey))).toMatch(/does not verify/)
    const otherRoot = createHash('sha256').update('other').digest().toString('base64')
    expect(refused(() => verifyCheckpoint(note.replace(root.toString('base64'), otherRoot), vkey))).toMatch(
      /does not verify/,
    )
    const other = generateKeyPairSync('ed25519').privateKey
    const forged = signCheckpoint({ origin, size: 42, root }, origin, other)
    expect(refused(() => verifyCheckpoint(forged, vkey))).toMatch(/not signed by the log key/)
    const elsewhere = signCheckpoint(
      { origin: 'evil.example/console/audit/acme', size: 42, root },
      origin,
      privateKey,
    )
    expect(refused(() => verifyCheckpoint(elsewhere, vkey))).toMatch(/origin/)
    expect(refused(() => verifyCheckpoint(note.replace('\n\n', '\n'), vkey))).toMatch(
      /signature line|blank line/,
    )
    expect(refused(() => verifyCheckpoint(`${note.slice(0, note.indexOf('\n\n'))}\n\n`, vkey))).toMatch(
      /signature/,
    )
    expect(refused(() => parseVerifierKey(vkey.replace(/\+[0-9a-f]{8}\+/, '+00000000+')))).toMatch(/key ID/)
  })

  it('accepts a cosignature beside the log signature', () => {
    const note = signCheckpoint({ origin, size: 1, root }, origin, privateKey)
    const witness = signCheckpoint(
      { origin, size: 1, root },
      'witness.example',
      generateKeyPairSync('ed25519').privateKey,
    )
    const cosigned = `${note}${witness.slice(witness.indexOf('\n\n') + 2)}`
    expect(verifyCheckpoint(cosigned, vkey).size).toBe(1)
  })
})
