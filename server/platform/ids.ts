import { randomFillSync } from 'node:crypto'

// Crockford base32, as ULID uses: ids sort by creation time as plain strings.
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ'

/**
 * Makes opaque, time-sortable ids with a type prefix (`key_`, `cred_`, `tx_` ...): a ULID (48-bit
 * millisecond time, 80 random bits) after the prefix. Ids made in the same millisecond still sort in
 * the order they were made, since the random part is incremented instead of redrawn.
 */
export class IdFactory {
  private lastMs = -1
  private lastRandom = new Uint8Array(10)

  constructor(private readonly now: () => number) {}

  next(prefix: string): string {
    const ms = this.now()
    if (ms <= this.lastMs) {
      increment(this.lastRandom)
    } else {
      this.lastMs = ms
      this.lastRandom = randomTen()
    }
    return `${prefix}_${encodeTime(this.lastMs)}${encodeRandom(this.lastRandom)}`
  }
}

/**
 * Random bytes drawn from the CSPRNG a pool at a time: each call of `randomBytes` pays OpenSSL's
 * locking and state checks (and a getpid), 3 % of a credential POST's CPU for its three or four ids.
 * The bytes are the same CSPRNG's, each handed out once.
 */
const POOL = new Uint8Array(4096)
let poolOffset = POOL.length

/** Ten fresh random bytes, in an array of their own (IdFactory increments it in place). */
function randomTen(): Uint8Array<ArrayBuffer> {
  if (poolOffset + 10 > POOL.length) {
    randomFillSync(POOL)
    poolOffset = 0
  }
  const bytes = POOL.slice(poolOffset, poolOffset + 10)
  poolOffset += 10
  return bytes
}

function encodeTime(ms: number): string {
  let out = ''
  let rest = ms
  for (let i = 0; i < 10; i++) {
    out = ALPHABET[rest % 32] + out
    rest = Math.floor(rest / 32)
  }
  return out
}

function encodeRandom(bytes: Uint8Array): string {
  // 80 bits → 16 base32 characters, 5 bits at a time.
  let out = ''
  let buffer = 0
  let bits = 0
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte
    bits += 8
    while (bits >= 5) {
      bits -= 5
      out += ALPHABET[(buffer >> bits) & 31]
    }
  }
  return out
}

function increment(bytes: Uint8Array): void {
  for (let i = bytes.length - 1; i >= 0; i--) {
    if (bytes[i]! < 255) {
      bytes[i]!++
      return
    }
    bytes[i] = 0
  }
}

/**
 * The smallest id of `prefix` made at `ms`: every id made at or after that time sorts after it, every
 * id made before sorts before it (a lower bound for "made since").
 */
export const idFloor = (prefix: string, ms: number): string =>
  `${prefix}_${encodeTime(Math.max(0, Math.floor(ms)))}${'0'.repeat(16)}`

/** The millisecond an id of IdFactory was made at (NaN for anything else). */
export function timeOfId(id: string): number {
  const time = id.slice(id.indexOf('_') + 1, id.indexOf('_') + 11)
  if (time.length !== 10) return Number.NaN
  let ms = 0
  for (const char of time) {
    const digit = ALPHABET.indexOf(char)
    if (digit < 0) return Number.NaN
    ms = ms * 32 + digit
  }
  return ms
}
