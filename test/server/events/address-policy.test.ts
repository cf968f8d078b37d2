import { describe, expect, it } from 'vitest'
import { classifyAddress, refusalOf } from '../../../server/webhooks/address-policy.js'
import { nextAttemptAt } from '../../../server/webhooks/backoff.js'

describe('classifyAddress', () => {
  it.each([
    ['8.8.8.8', 'public'],
    ['1.1.1.1', 'public'],
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['172.32.0.1', 'public'],
    ['192.168.10.1', 'private'],
    ['100.64.0.1', 'private'],
    ['169.254.169.254', 'metadata'],
    ['169.254.1.1', 'link_local'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'link_local'],
    ['fc00::1', 'unique_local'],
    ['fd12:3456::1', 'unique_local'],
    ['fd00:ec2::254', 'metadata'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:a9fe:a9fe', 'metadata'],
    ['[::ffff:169.254.169.254]', 'metadata'],
    ['64:ff9b::a00:1', 'private'],
    ['2002:a9fe:a9fe::1', 'metadata'],
    ['2606:4700:4700::1111', 'public'],
    ['2001:db8::1', 'reserved'],
    ['example.com', 'invalid'],
  ])('%s is %s', (address, kind) => {
    expect(classifyAddress(address)).toBe(kind)
  })

  it('allows loopback only when told', () => {
    expect(refusalOf('127.0.0.1', false)).toMatch(/loopback/)
    expect(refusalOf('127.0.0.1', true)).toBeNull()
    expect(refusalOf('10.0.0.1', true)).toMatch(/private/)
    expect(refusalOf('93.184.216.34', false)).toBeNull()
  })
})

describe('nextAttemptAt', () => {
  it('waits 5 s, 30 s, 2 min, 10 min, 1 h, 6 h, then 12 h, for 3 days from the delivery', () => {
    const t0 = 0
    const waits: number[] = []
    let now = t0
    for (let attempt = 1; ; attempt++) {
      const next = nextAttemptAt(attempt, t0, now)
      if (next === null) break
      waits.push(next - now)
      now = next
    }
    const h = 3_600_000
    expect(waits).toEqual([5_000, 30_000, 120_000, 600_000, h, 6 * h, 12 * h, 12 * h, 12 * h, 12 * h, 12 * h])
  })
})
