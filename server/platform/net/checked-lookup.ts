import { lookup as dnsLookup, type LookupAddress } from 'node:dns'
import type { LookupFunction } from 'node:net'
import { classifyAddress, refusalOf } from './address-policy.js'

/*
 * The address policy applied to a URL someone outside chose and the server fetches or posts to
 * (docs/webhooks.md, "Webhook endpoints"; docs/issuers.md, "Resolution"): https to public addresses only;
 * http, and loopback addresses, only when the server runs with the flag that allows them, and http to
 * loopback alone. Every address the host resolves to is checked, and the request's own DNS lookup is
 * replaced by one that checks what it resolves and hands over only checked addresses, so a name that
 * resolves to a public address when checked and to a private one a moment later (DNS rebinding) cannot
 * slip through. Each caller names its flag and the error it throws (`refuse`).
 */

export interface AddressPolicy {
  /** http, and loopback addresses, allowed (`flag` was given). */
  allowHttp: boolean
  /** The flag that allows them, named in a refusal: `--allow-http-webhooks`. */
  flag: string
}

/** Makes the caller's error from a refusal's sentence. */
export type Refuse = (message: string) => Error

/** Resolves a host to every address, as the system resolver does (the hosts file included). */
export const resolveAll = (host: string): Promise<LookupAddress[]> =>
  new Promise((resolve, reject) =>
    dnsLookup(host, { all: true, verbatim: true }, (error, addresses) =>
      error ? reject(error) : resolve(addresses),
    ),
  )

/** The URL's host without IPv6 brackets. */
export const hostOf = (url: URL): string => url.hostname.replace(/^\[|\]$/g, '')

/** Checks the URL's scheme (no address yet). */
export function checkScheme(url: URL, policy: AddressPolicy, refuse: Refuse): void {
  if (url.protocol === 'https:') return
  if (url.protocol === 'http:' && policy.allowHttp) return
  throw refuse(
    url.protocol === 'http:'
      ? `${url.href} is http, allowed only to a loopback address when the server runs with ${policy.flag}; use https`
      : `${url.protocol} is not https`,
  )
}

/** Checks every address the host has: each allowed, and plain http reaching loopback alone. */
export function checkAddresses(
  url: URL,
  addresses: readonly string[],
  policy: AddressPolicy,
  refuse: Refuse,
): void {
  if (addresses.length === 0) throw refuse(`${url.hostname} resolves to no address`)
  const host = hostOf(url)
  for (const address of addresses) {
    const where = host === address ? address : `${host} resolves to ${address}, which`
    const loopback = classifyAddress(address) === 'loopback'
    if (loopback && !policy.allowHttp) {
      throw refuse(`${where} is a loopback address (allowed only when the server runs with ${policy.flag})`)
    }
    const refusal = refusalOf(address, policy.allowHttp)
    if (refusal) throw refuse(`${where} is ${refusal}`)
    if (url.protocol === 'http:' && !loopback) {
      throw refuse(`http is allowed only to a loopback address; ${url.hostname} is not one: use https`)
    }
  }
}

/** Resolves the URL's host now and checks every address (a host that does not resolve is refused). */
export async function checkResolved(url: URL, policy: AddressPolicy, refuse: Refuse): Promise<void> {
  let addresses: LookupAddress[]
  try {
    addresses = await resolveAll(hostOf(url))
  } catch {
    throw refuse(`${url.hostname} does not resolve`)
  }
  checkAddresses(
    url,
    addresses.map((a) => a.address),
    policy,
    refuse,
  )
}

/** A lookup for the request that resolves, checks every address, and hands over only checked ones. */
export function checkedLookup(url: URL, policy: AddressPolicy, refuse: Refuse): LookupFunction {
  return (hostname, options, callback) => {
    resolveAll(hostname).then(
      (addresses) => {
        try {
          checkAddresses(
            url,
            addresses.map((a) => a.address),
            policy,
            refuse,
          )
        } catch (error) {
          return callback(error as Error, '', 0)
        }
        const wanted = addresses.filter((a) => !options.family || a.family === options.family)
        if (options.all) return (callback as (e: null, a: LookupAddress[]) => void)(null, wanted)
        const first = wanted[0] ?? addresses[0]!
        callback(null, first.address, first.family)
      },
      () => callback(refuse(`${hostname} does not resolve`), '', 0),
    )
  }
}
