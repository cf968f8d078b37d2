import { isIPv4, isIPv6 } from 'node:net'

/*
 * Which addresses a webhook may be delivered to (docs/webhooks.md, "Webhook endpoints"): public unicast
 * addresses only. A webhook URL is chosen by a customer and fetched by the server, so without this rule
 * it would reach what only the server can reach: its own loopback services, the private network behind
 * it, and the cloud metadata services (169.254.169.254 and the others of `METADATA_V4`) that hand out
 * credentials. IPv6 addresses that
 * carry an IPv4 address (IPv4-mapped, SIIT, NAT64, 6to4, Teredo: `embeddedV4`) are judged by it.
 * Loopback is allowed only when the server runs with --allow-http-webhooks (a developer's machine,
 * `rwa sandbox`).
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

/**
 * The cloud metadata services' IPv4 addresses, each of which hands out credentials or configuration to
 * whatever on the instance asks: 169.254.169.254 (AWS, GCP, Azure IMDS, most others), 168.63.129.16
 * (Azure's wireserver, a public address), 100.100.100.200 (Alibaba Cloud) and 192.0.0.192 (Oracle Cloud).
 * Most also fall in a refused range; they are named so a refusal says what they are, and so one that
 * does not (168.63.129.16) is refused at all.
 */
const METADATA_V4 = new Set(
  ['169.254.169.254', '168.63.129.16', '100.100.100.200', '192.0.0.192'].map((a) => v4(a)!),
)

/** The class of an IPv4 address given as a 32-bit number. */
function classifyV4(n: number): AddressClass {
  if (METADATA_V4.has(n)) return 'metadata'
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

/** The IPv4 address (a 32-bit number) in four bytes of an IPv6 address, at the byte offsets given. */
const v4Of = (bytes: number[], at: readonly number[]): number => at.reduce((n, i) => n * 256 + bytes[i]!, 0)

/** Where RFC 6052 puts the IPv4 address in an IPv6 address of each NAT64 prefix length (byte 8 is skipped). */
const NAT64_PLACES = {
  48: [6, 7, 9, 10],
  56: [7, 9, 10, 11],
  64: [9, 10, 11, 12],
  96: [12, 13, 14, 15],
} as const

/**
 * The IPv4 addresses an IPv6 address leads to, by the translation or tunnel its prefix names, or
 * undefined when it names none. Such an address reaches (or may reach) those IPv4 addresses, so it is
 * judged by them:
 * - `::ffff:0:0/96` IPv4-mapped and `::/96` IPv4-compatible (deprecated): the last 32 bits;
 * - `::ffff:0:0:0/96` SIIT (IPv4-translated): the last 32 bits;
 * - `64:ff9b::/96` NAT64's well-known prefix: the last 32 bits;
 * - `64:ff9b:1::/48` NAT64's local-use prefix: a network may translate it as a /48, /56, /64 or /96
 *   prefix, each placing the IPv4 address elsewhere, so every placement counts;
 * - `2002::/16` 6to4: bits 16-47, the tunnel's IPv4 end;
 * - `2001::/32` Teredo: the client's IPv4 address (the last 32 bits, inverted), where a relay sends the
 *   packets, and the Teredo server's (bits 32-63); both count.
 */
function embeddedV4(g: number[]): number[] | undefined {
  const bytes = g.flatMap((group) => [group >> 8, group & 0xff])
  const zeroUpTo = (i: number) => g.slice(0, i).every((x) => x === 0)
  const last = v4Of(bytes, NAT64_PLACES[96])
  if (zeroUpTo(5) && (g[5] === 0xffff || g[5] === 0)) return [last]
  if (zeroUpTo(4) && g[4] === 0xffff && g[5] === 0) return [last]
  if (g[0] === 0x64 && g[1] === 0xff9b) {
    if (g.slice(2, 6).every((x) => x === 0)) return [last]
    if (g[2] === 1) return Object.values(NAT64_PLACES).map((at) => v4Of(bytes, at))
  }
  if (g[0] === 0x2002) return [v4Of(bytes, [2, 3, 4, 5])]
  if (g[0] === 0x2001 && g[1] === 0) return [(last ^ 0xffffffff) >>> 0, v4Of(bytes, [4, 5, 6, 7])]
  return undefined
}

/** The class of an address, and the IPv4 address it carries that decided it, if one did. */
interface Judgement {
  kind: AddressClass
  carried?: number
}

function judgeV6(g: number[]): Judgement {
  const zeroUpTo = (i: number) => g.slice(0, i).every((x) => x === 0)
  if (zeroUpTo(8)) return { kind: 'unspecified' }
  if (zeroUpTo(7) && g[7] === 1) return { kind: 'loopback' }
  const carried = embeddedV4(g)
  if (carried) {
    // Judged by where it leads: the first of its IPv4 addresses that is not public, if any.
    const refused = carried.find((n) => classifyV4(n) !== 'public')
    return refused === undefined ? { kind: 'public' } : { kind: classifyV4(refused), carried: refused }
  }
  if (g[0] === 0xfd00 && g[1] === 0x0ec2) return { kind: 'metadata' }
  if ((g[0]! & 0xfe00) === 0xfc00) return { kind: 'unique_local' }
  if ((g[0]! & 0xffc0) === 0xfe80) return { kind: 'link_local' }
  if ((g[0]! & 0xffc0) === 0xfec0) return { kind: 'private' }
  if ((g[0]! & 0xff00) === 0xff00) return { kind: 'multicast' }
  // 2001:db8::/32 documentation, 100::/64 discard.
  if ((g[0] === 0x2001 && g[1] === 0x0db8) || (g[0] === 0x100 && zeroUpTo(4))) return { kind: 'reserved' }
  return { kind: 'public' }
}

function judge(address: string): Judgement {
  const text = address.replace(/^\[|\]$/g, '')
  const n = v4(text)
  if (n !== undefined) return { kind: classifyV4(n) }
  const groups = v6Groups(text)
  return groups ? judgeV6(groups) : { kind: 'invalid' }
}

/** The class of an IP address (IPv4 or IPv6 text, brackets allowed). */
export function classifyAddress(address: string): AddressClass {
  return judge(address).kind
}

/** Dotted text of an IPv4 address given as a 32-bit number. */
const dotted = (n: number): string => [24, 16, 8, 0].map((shift) => (n >>> shift) & 0xff).join('.')

/**
 * What an address is when it may not receive a delivery (`a private address`), or null when it may:
 * public addresses always, loopback only with `allowLoopback`. An IPv6 address refused for the IPv4
 * address it carries names it.
 */
export function refusalOf(address: string, allowLoopback: boolean): string | null {
  const { kind, carried } = judge(address)
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
  return carried === undefined ? why[kind] : `${why[kind]} (it carries the IPv4 address ${dotted(carried)})`
}
