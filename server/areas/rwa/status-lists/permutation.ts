import { createHmac } from 'node:crypto'
import { keepRecent, useRecent } from '../../../platform/caches/recently-used.js'

/*
 * Where the n-th entry of a status list goes: index permute(key, n), a keyed pseudo-random permutation
 * of 0..capacity-1. Every index is used once, and without the key (never published) the order of the
 * indexes reveals nothing about the order of issuance. A 4-round Feistel network on 18 bits, walked
 * until it lands inside the list (cycle walking keeps it a permutation of the smaller range).
 */

const HALF_BITS = 9
const HALF_MASK = (1 << HALF_BITS) - 1
const HALF_VALUES = 1 << HALF_BITS
const DOMAIN = 1 << (2 * HALF_BITS)
const ROUNDS = 4

/**
 * A key's round function has only ROUNDS × 2^9 inputs, so each key keeps a table of the outputs it has
 * computed (-1: not yet), and an issuance needs an HMAC only the first time a list meets an input (one
 * each, 8 per entry, were 5 % of a credential in a batch). The tables are kept by key (4 KB each, outside
 * the JavaScript heap), the least recently used forgotten first past TABLES_KEPT (32 MB at most). Past
 * it, lists issuing in turn each find their table gone: at 1,024 kept, the benchmark's 1,179
 * organizations made every credential rebuild one, ~27 µs against 0.6 (docs/performance.md, "Ninth
 * pass: a status list's table per organization").
 */
export const TABLES_KEPT = 8192
const tables = new Map<string, { key: Buffer; outputs: Int16Array }>()

function tableOf(key: Buffer | string): { key: Buffer; outputs: Int16Array } {
  const id = typeof key === 'string' ? key : key.toString('base64')
  let table = useRecent(tables, id)
  if (table === undefined) {
    const bytes = typeof key === 'string' ? Buffer.from(key, 'base64') : Buffer.from(key)
    table = { key: bytes, outputs: new Int16Array(ROUNDS * HALF_VALUES).fill(-1) }
    keepRecent(tables, id, table, TABLES_KEPT)
  }
  return table
}

/** Whether the table of `key` (its bytes or their base64) is kept (for tests). */
export function tableKept(key: Buffer | string): boolean {
  return tables.has(typeof key === 'string' ? key : key.toString('base64'))
}

function round(table: { key: Buffer; outputs: Int16Array }, n: number, half: number): number {
  const at = n * HALF_VALUES + half
  let output = table.outputs[at]!
  if (output < 0) {
    const digest = createHmac('sha256', table.key)
      .update(Uint8Array.of(n, half >> 8, half & 0xff))
      .digest()
    output = ((digest[0]! << 8) | digest[1]!) & HALF_MASK
    table.outputs[at] = output
  }
  return output
}

function feistel(table: { key: Buffer; outputs: Int16Array }, x: number): number {
  let left = x >> HALF_BITS
  let right = x & HALF_MASK
  for (let n = 0; n < ROUNDS; n++) [left, right] = [right, left ^ round(table, n, right)]
  return (left << HALF_BITS) | right
}

/**
 * The index of entry `n` (0 ≤ n < capacity ≤ 2^18) in a list whose permutation key is `key` (its bytes,
 * or the base64 the list's row stores).
 */
export function permute(key: Buffer | string, n: number, capacity: number): number {
  if (capacity > DOMAIN || n < 0 || n >= capacity)
    throw new RangeError(`entry ${n} is outside 0..${capacity - 1}`)
  const table = tableOf(key)
  let x = n
  do x = feistel(table, x)
  while (x >= capacity)
  return x
}
