import { isIPv4, isIPv6 } from 'node:net'

/*
 * Which addresses a webhook may be delivered to (docs/webhooks.md, "Webhook endpoints"): public unicast
 * addresses only. A webhook URL is chosen by a customer and fetched by the server, so without this rule it
 * would reach what only the server can reach: its own loopback services, the private network behind it, and
 * the cloud metadata service (169.254.169.254) that hands out credentials. IPv4-mapped, NAT64 and 6to4 IPv6
 * addresses carry an IPv4 address and are judged by it. Loopback is allowed only when the server runs
 * with --allow-http-webhooks (a developer's machine, `rwa sandbox`).
 */

/** Why an address is refused, or `public` / `loopback`. */
export type AddressClass =
  | 'public'
  | 'loopback'
  | 'private'
  | 'link_local'
  | 'unique_local'
  | 'metadata'
  | 'unspecified'
  | 'multicast'
  | 'reserved'
  | 'invalid'

const v4 = (text: string): number | undefined => {
  if (!isIPv4(text)) return undefined
  return text.split('.').reduce((n, part) => n * 256 + Number(part), 0)
}

const inV4 = (n: number, base: string, bits: number): boolean => {
  const b = v4(base)!
  const size = 2 ** (32 - bits)
  return Math.floor(n / size) === Math.floor(b / size)
}

/** The class of an IPv4 address given as a 32-bit number. */
function classifyV4(n: number): AddressClass {
  if (n === v4('169.254.169.254') || n === v4('100.100.100.200')) return 'metadata'
  if (inV4(n, '127.0.0.0', 8)) return 'loopback'
  if (inV4(n, '0.0.0.0', 8)) return 'unspecified'
  if (inV4(n, '10.0.0.0', 8) || inV4(n, '172.16.0.0', 12) || inV4(n, '192.168.0.0', 16)) return 'private'
  // Carrier-grade NAT, IETF protocol assignments, benchmarking: never a customer's public endpoint.
  if (inV4(n, '100.64.0.0', 10) || inV4(n, '192.0.0.0', 24) || inV4(n, '198.18.0.0', 15)) return 'private'
  if (inV4(n, '169.254.0.0', 16)) return 'link_local'
  if (inV4(n, '224.0.0.0', 4)) return 'multicast'
  if (inV4(n, '240.0.0.0', 4)) return 'reserved'
  // Documentation ranges (TEST-NET-1/2/3).
  if (inV4(n, '192.0.2.0', 24) || inV4(n, '198.51.100.0', 24) || inV4(n, '203.0.113.0', 24)) return 'reserved'
  return 'public'
}

/** The eight 16-bit groups of an IPv6 address (with an embedded dotted IPv4 tail expanded). */
function v6Groups(text: string): number[] | undefined {
  if (!isIPv6(text)) return undefined
  let address = text.split('%')[0]!
  const dotted = address.match(/^(.*:)(\d+\.\d+\.\d+\.\d+)$/)
  if (dotted) {
    const n = v4(dotted[2]!)
    if (n === undefined) return undefined
    address = `${dotted[1]}${Math.floor(n / 65536).toString(16)}:${(n % 65536).toString(16)}`
  }
  const [head, tail] = address.includes('::') ? address.split('::') : [address, undefined]
  const headGroups = head ? head.split(':') : []
  const tailGroups = tail ? tail.split(':') : []
  const fill = tail === undefined ? [] : Array(8 - headGroups.length - tailGroups.length).fill('0')
  const groups = [...headGroups, ...fill, ...tailGroups].map((g) => Number.parseInt(g, 16))
  return groups.length === 8 ? groups : undefined
}

function classifyV6(g: number[]): AddressClass {
  const embeddedV4 = (hi: number, lo: number) => classifyV4(hi * 65536 + lo)
  const zeroUpTo = (i: number) => g.slice(0, i).every((x) => x === 0)
  if (zeroUpTo(8)) return 'unspecified'
  if (zeroUpTo(7) && g[7] === 1) return 'loopback'
  // ::ffff:a.b.c.d (IPv4-mapped) and ::a.b.c.d (IPv4-compatible, deprecated).
  if (zeroUpTo(5) && (g[5] === 0xffff || g[5] === 0)) return embeddedV4(g[6]!, g[7]!)
  // 64:ff9b::/96 (NAT64) and 2002::/16 (6to4) reach the IPv4 address they carry.
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return embeddedV4(g[6]!, g[7]!)
  if (g[0] === 0x2002) return embeddedV4(g[1]!, g[2]!)
  if (g[0] === 0xfd00 && g[1] === 0x0ec2) return 'metadata'
  if ((g[0]! & 0xfe00) === 0xfc00) return 'unique_local'
  if ((g[0]! & 0xffc0) === 0xfe80) return 'link_local'
  if ((g[0]! & 0xffc0) === 0xfec0) return 'private'
  if ((g[0]! & 0xff00) === 0xff00) return 'multicast'
  // 2001:db8::/32 documentation, 100::/64 discard.
  if ((g[0] === 0x2001 && g[1] === 0x0db8) || (g[0] === 0x100 && zeroUpTo(4))) return 'reserved'
  return 'public'
}

/** The class of an IP address (IPv4 or IPv6 text, brackets allowed). */
export function classifyAddress(address: string): AddressClass {
  const text = address.replace(/^\[|\]$/g, '')
  const n = v4(text)
  if (n !== undefined) return classifyV4(n)
  const groups = v6Groups(text)
  return groups ? classifyV6(groups) : 'invalid'
}

/**
 * What an address is when it may not receive a delivery (`a private address`), or null when it may:
 * public addresses always, loopback only with `allowLoopback`.
 */
export function refusalOf(address: string, allowLoopback: boolean): string | null {
  const kind = classifyAddress(address)
  if (kind === 'public' || (kind === 'loopback' && allowLoopback)) return null
  const why: Record<Exclude<AddressClass, 'public'>, string> = {
    loopback: 'a loopback address (allowed only when the server runs with --allow-http-webhooks)',
    private: 'a private address',
    link_local: 'a link-local address',
    unique_local: 'a unique-local address',
    metadata: 'a cloud metadata address',
    unspecified: 'an unspecified address',
    multicast: 'a multicast address',
    reserved: 'a reserved address',
    invalid: 'not an IP address',
  }
  return why[kind]
}
