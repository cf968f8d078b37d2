import { describe, expect, it } from 'vitest'
import { classifyAddress, refusalOf } from '../../../server/platform/net/address-policy.js'
import { nextAttemptAt } from '../../../server/areas/webhooks/backoff.js'

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

describe('IPv6 addresses that carry an IPv4 address are judged by it', () => {
  // 169.254.169.254 = a9fe:a9fe, 10.0.0.1 = a00:1, 127.0.0.1 = 7f00:1, 8.8.8.8 = 808:808.
  it.each([
    // IPv4-mapped ::ffff:0:0/96
    ['::ffff:169.254.169.254', 'metadata'],
    ['::ffff:808:808', 'public'],
    // SIIT (IPv4-translated) ::ffff:0:0:0/96
    ['::ffff:0:a9fe:a9fe', 'metadata'],
    ['::ffff:0:169.254.169.254', 'metadata'],
    ['::ffff:0:a00:1', 'private'],
    ['::ffff:0:7f00:1', 'loopback'],
    ['::ffff:0:808:808', 'public'],
    // NAT64, well-known prefix 64:ff9b::/96
    ['64:ff9b::a9fe:a9fe', 'metadata'],
    ['64:ff9b::169.254.169.254', 'metadata'],
    ['64:ff9b::808:808', 'public'],
    // NAT64, local-use prefix 64:ff9b:1::/48: the IPv4 address at each place a /48, /56, /64 or /96
    // translator would read it must be public.
    ['64:ff9b:1::a9fe:a9fe', 'unspecified'],
    ['64:ff9b:1:a9fe:a9:fe00::', 'metadata'],
    ['64:ff9b:1:a9fe:a9:fe00:808:808', 'metadata'],
    ['64:ff9b:1:808:8:800:808:808', 'public'],
    ['64:ff9b:1:a00:0:100::', 'private'],
    // 6to4 2002::/16: bits 16-47
    ['2002:a9fe:a9fe::1', 'metadata'],
    ['2002:7f00:1::1', 'loopback'],
    ['2002:808:808::1', 'public'],
    // Teredo 2001::/32: the client (the last 32 bits inverted: 5601:5601 is 169.254.169.254) and the
    // server (bits 32-63) must both be public.
    ['2001:0:4136:e378::5601:5601', 'metadata'],
    ['2001:0:4136:e378::f5ff:fffe', 'private'],
    ['2001:0:a00:1::f7f7:f7f7', 'private'],
    ['2001:0:4136:e378::f7f7:f7f7', 'public'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'reserved'],
    // Not Teredo: another 2001:: network.
    ['2001:4860:4860::8888', 'public'],
  ])('%s is %s', (address, kind) => {
    expect(classifyAddress(address)).toBe(kind)
  })

  it('names the IPv4 address that decided a refusal', () => {
    expect(refusalOf('64:ff9b::a9fe:a9fe', false)).toBe(
      'a cloud metadata address (it carries the IPv4 address 169.254.169.254)',
    )
    expect(refusalOf('2001:0:4136:e378::5601:5601', true)).toBe(
      'a cloud metadata address (it carries the IPv4 address 169.254.169.254)',
    )
    expect(refusalOf('::ffff:0:7f00:1', true)).toBeNull()
    expect(refusalOf('fd00:ec2::254', false)).toBe('a cloud metadata address')
  })
})

describe('every cloud metadata address is refused as one, in each IPv6 form that carries it', () => {
  // 169.254.169.254 (AWS, GCP, Azure IMDS...), 168.63.129.16 (Azure wireserver), 100.100.100.200
  // (Alibaba Cloud), 192.0.0.192 (Oracle Cloud).
  const METADATA: Array<[string, string, string]> = [
    // [address, its two low groups, the Teredo client form (inverted)]
    ['169.254.169.254', 'a9fe:a9fe', '5601:5601'],
    ['168.63.129.16', 'a83f:8110', '57c0:7eef'],
    ['100.100.100.200', '6464:64c8', '9b9b:9b37'],
    ['192.0.0.192', 'c000:c0', '3fff:ff3f'],
  ]
  it.each(METADATA)('%s', (address, groups, teredo) => {
    const [hi, lo] = groups.split(':')
    const forms = [
      address,
      `::ffff:${address}`,
      `::ffff:${groups}`,
      `::ffff:0:${groups}`,
      `64:ff9b::${groups}`,
      `64:ff9b::${address}`,
      `2002:${hi}:${lo}::1`,
      `2001:0:4136:e378::${teredo}`,
    ]
    for (const form of forms) {
      expect(classifyAddress(form), form).toBe('metadata')
      expect(refusalOf(form, true), form).toMatch(/^a cloud metadata address/)
    }
    expect(refusalOf(`64:ff9b::${groups}`, false)).toBe(
      `a cloud metadata address (it carries the IPv4 address ${address})`,
    )
  })

  it('their neighbours are judged as before', () => {
    expect(classifyAddress('168.63.129.15')).toBe('public')
    expect(classifyAddress('168.63.129.17')).toBe('public')
    expect(classifyAddress('192.0.0.191')).toBe('private')
    expect(classifyAddress('100.100.100.201')).toBe('private')
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
