import { describe, expect, it } from 'vitest'
import { clientBucketKey, TokenBuckets } from '../../../server/platform/limits/public-bucket.js'

describe('clientBucketKey', () => {
  it('keeps an IPv4 address, and the IPv4 address of an IPv4-mapped IPv6 one', () => {
    expect(clientBucketKey('203.0.113.7')).toBe('203.0.113.7')
    expect(clientBucketKey('::ffff:203.0.113.7')).toBe('203.0.113.7')
  })

  it('counts an IPv6 address by its /64, however it is written', () => {
    const key = '2001:db8:0:12::/64'
    expect(clientBucketKey('2001:db8:0:12::1')).toBe(key)
    expect(clientBucketKey('2001:0db8:0000:0012:ffff:1:2:3')).toBe(key)
    expect(clientBucketKey('2001:db8:0:12:abcd::%eth0')).toBe(key)
    expect(clientBucketKey('2001:db8:0:13::1')).not.toBe(key)
    expect(clientBucketKey('::1')).toBe('0:0:0:0::/64')
  })
})

describe('TokenBuckets', () => {
  const rate = { perSecond: 10, burst: 3 }

  it('admits the burst, then one request per 1/rate seconds', () => {
    const buckets = new TokenBuckets()
    for (let i = 0; i < 3; i++) expect(buckets.take('a', rate, 0).allowed).toBe(true)
    expect(buckets.take('a', rate, 0)).toEqual({ allowed: false, retryAfterSeconds: 1, retryInMs: 100 })
    expect(buckets.take('a', rate, 100).allowed).toBe(true)
    expect(buckets.take('a', rate, 100).allowed).toBe(false)
    // A clock that goes back (another instance's) neither refills nor drains.
    expect(buckets.take('a', rate, 50).allowed).toBe(false)
  })

  it('forgets the buckets that are full again, so memory follows the clients of the moment', () => {
    const buckets = new TokenBuckets()
    for (let i = 0; i < 1000; i++) buckets.take(`client-${i}`, rate, 20_000)
    expect(buckets.size).toBe(1000)
    // 0.3 s refills a bucket of 3 at 10/s; the sweep runs every 10 s.
    buckets.take('late', rate, 30_001)
    expect(buckets.size).toBe(1)
  })
})
