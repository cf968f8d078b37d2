import { lookup as dnsLookup, type LookupAddress } from 'node:dns'
import { isIP, type LookupFunction } from 'node:net'
import { refusalOf } from './address-policy.js'
import { type PostOutcome, PostRefused, postJson } from './post.js'

/*
 * Where a webhook goes, checked (docs/webhooks.md, "Webhook endpoints"): the URL must be https (http only to
 * loopback, when the server runs with --allow-http-webhooks), and every address its host resolves to must be
 * allowed (./address-policy.ts), at creation and again at each delivery. The delivery connects to the address
 * that was checked: the request's own DNS lookup is replaced by one that checks what it resolves, so
 * a name that resolves to a public address when checked and to a private one a moment later (DNS
 * rebinding) cannot slip through. The POST itself (./post.ts) follows no redirect, gives up after
 * 10 s and reads at most 64 KiB of the answer.
 */

export interface DestinationPolicy {
  /** `--allow-http-webhooks`: http, and loopback addresses, allowed. */
  allowHttp: boolean
}

/** The refusal of a webhook URL: what is wrong with it, for `context.reason`. */
export class DestinationRefused extends PostRefused {}

/** Resolves a host to every address, as the system resolver does (the hosts file included). */
const resolveAll = (host: string): Promise<LookupAddress[]> =>
  new Promise((resolve, reject) =>
    dnsLookup(host, { all: true, verbatim: true }, (error, addresses) =>
      error ? reject(error) : resolve(addresses),
    ),
  )

/** The URL's host without IPv6 brackets. */
const hostOf = (url: URL): string => url.hostname.replace(/^\[|\]$/g, '')

/** Checks the URL's scheme (no address yet). */
function checkScheme(url: URL, policy: DestinationPolicy): void {
  if (url.protocol === 'https:') return
  if (url.protocol === 'http:' && policy.allowHttp) return
  throw new DestinationRefused(
    url.protocol === 'http:'
      ? 'http is allowed only to a loopback address when the server runs with --allow-http-webhooks; use https'
      : `${url.protocol} is not https`,
  )
}

/** Checks addresses: every one must be allowed, and plain http reaches loopback only. */
function checkAddresses(url: URL, addresses: readonly string[], policy: DestinationPolicy): void {
  if (addresses.length === 0) throw new DestinationRefused(`${url.hostname} resolves to no address`)
  for (const address of addresses) {
    const refusal = refusalOf(address, policy.allowHttp)
    if (refusal) {
      const host = hostOf(url)
      throw new DestinationRefused(
        host === address ? `${address} is ${refusal}` : `${host} resolves to ${address}, ${refusal}`,
      )
    }
    if (url.protocol === 'http:' && refusalOf(address, false) === null) {
      throw new DestinationRefused(
        `http is allowed only to a loopback address; ${url.hostname} is public: use https`,
      )
    }
  }
}

/** Checks a webhook URL as it is created: scheme, then the addresses its host resolves to now. */
export async function checkDestination(raw: string, policy: DestinationPolicy): Promise<void> {
  const url = new URL(raw)
  checkScheme(url, policy)
  const host = hostOf(url)
  if (isIP(host)) return checkAddresses(url, [host], policy)
  let addresses: LookupAddress[]
  try {
    addresses = await resolveAll(host)
  } catch {
    throw new DestinationRefused(`${url.hostname} does not resolve`)
  }
  checkAddresses(
    url,
    addresses.map((a) => a.address),
    policy,
  )
}

/** A lookup for the request that resolves, checks every address, and hands over only checked ones. */
function checkedLookup(url: URL, policy: DestinationPolicy): LookupFunction {
  return (hostname, options, callback) => {
    resolveAll(hostname).then(
      (addresses) => {
        try {
          checkAddresses(
            url,
            addresses.map((a) => a.address),
            policy,
          )
        } catch (error) {
          return callback(error as Error, '', 0)
        }
        const wanted = addresses.filter((a) => !options.family || a.family === options.family)
        if (options.all) return (callback as (e: null, a: LookupAddress[]) => void)(null, wanted)
        const first = wanted[0] ?? addresses[0]!
        callback(null, first.address, first.family)
      },
      () => callback(new DestinationRefused(`${hostname} does not resolve`), '', 0),
    )
  }
}

/**
 * POSTs `body` to the webhook URL after checking it, connecting only to checked addresses (./post.ts:
 * a 2xx is a success, a redirect never followed).
 */
export async function postToDestination(
  raw: string,
  body: string,
  headers: Record<string, string>,
  policy: DestinationPolicy,
): Promise<PostOutcome> {
  let url: URL
  try {
    url = new URL(raw)
    checkScheme(url, policy)
    const host = hostOf(url)
    if (isIP(host)) checkAddresses(url, [host], policy)
  } catch (error) {
    return { statusCode: null, error: `refused: ${(error as Error).message}` }
  }
  return postJson(url, body, headers, { lookup: checkedLookup(url, policy) })
}
