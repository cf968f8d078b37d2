import { createHmac } from 'node:crypto'

/*
 * Where the n-th entry of a status list goes: index permute(key, n), a keyed pseudo-random permutation
 * of 0..capacity-1. Every index is used once, and without the key (never published) the order of the
 * indexes reveals nothing about the order of issuance. A 4-round Feistel network on 18 bits, walked
 * until it lands inside the list (cycle walking keeps it a permutation of the smaller range).
 */

const HALF_BITS = 9
const HALF_MASK = (1 << HALF_BITS) - 1
const DOMAIN = 1 << (2 * HALF_BITS)
const ROUNDS = 4

function round(key: Buffer, n: number, half: number): number {
  const digest = createHmac('sha256', key)
    .update(Uint8Array.of(n, half >> 8, half & 0xff))
    .digest()
  return ((digest[0]! << 8) | digest[1]!) & HALF_MASK
}

function feistel(key: Buffer, x: number): number {
  let left = x >> HALF_BITS
  let right = x & HALF_MASK
  for (let n = 0; n < ROUNDS; n++) [left, right] = [right, left ^ round(key, n, right)]
  return (left << HALF_BITS) | right
}

/** The index of entry `n` (0 ≤ n < capacity ≤ 2^18) in a list whose permutation key is `key`. */
export function permute(key: Buffer, n: number, capacity: number): number {
  if (capacity > DOMAIN || n < 0 || n >= capacity)
    throw new RangeError(`entry ${n} is outside 0..${capacity - 1}`)
  let x = n
  do x = feistel(key, x)
  while (x >= capacity)
  return x
}
