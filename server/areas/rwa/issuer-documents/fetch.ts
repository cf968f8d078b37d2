import { lookup as dnsLookup, type LookupAddress } from 'node:dns'
import { request as httpRequest, type IncomingMessage } from 'node:http'
import { request as httpsRequest } from 'node:https'
import { isIP, type LookupFunction } from 'node:net'
import { classifyAddress, refusalOf } from '../../webhooks/address-policy.js'
import { currentRound, MAX_OUTSIDE_ROUNDS, OutsideWorkNeeded } from '../../../pipeline/writes/outside-work.js'

/*
 * What the server fetches for trusted issuers (docs/issuers.md, "Resolution"): a did:web document and
 * the status lists its credentials name. Both are chosen by someone outside, so they follow the address
 * policy of webhooks (server/areas/webhooks/address-policy.ts): https to public addresses only; http, and
 * loopback addresses, only when the server runs with --allow-http-issuers, and http to loopback alone.
 * The request connects only to addresses that were checked (its own DNS lookup checks what it
 * resolves), follows no redirect, gives up after 10 s and reads at most 2 MiB.
 */

export const ISSUER_FETCH_TIMEOUT_MS = 10_000
export const ISSUER_FETCH_MAX_BYTES = 2 * 1024 * 1024

export interface IssuerFetchPolicy {
  /** `--allow-http-issuers`. */
  allowHttp: boolean
}

/** Why a fetch gave nothing: a sentence for `context.reason`. */
export class FetchFailed extends Error {}

const resolveAll = (host: string): Promise<LookupAddress[]> =>
  new Promise((resolve, reject) =>
    dnsLookup(host, { all: true, verbatim: true }, (error, addresses) =>
      error ? reject(error) : resolve(addresses),
    ),
  )

const hostOf = (url: URL): string => url.hostname.replace(/^\[|\]$/g, '')

/** Checks every address the host has: each allowed, and http reaching loopback alone. */
function checkAddresses(url: URL, addresses: readonly string[], policy: IssuerFetchPolicy): void {
  if (addresses.length === 0) throw new FetchFailed(`${url.hostname} resolves to no address`)
  for (const address of addresses) {
    const host = hostOf(url)
    const where = host === address ? address : `${host} resolves to ${address}, which`
    if (classifyAddress(address) === 'loopback' && !policy.allowHttp) {
      throw new FetchFailed(
        `${where} is a loopback address (allowed only when the server runs with --allow-http-issuers)`,
      )
    }
    const refusal = refusalOf(address, policy.allowHttp)
    if (refusal) throw new FetchFailed(`${where} is ${refusal.replace(/ \(allowed only.*\)$/, '')}`)
    if (url.protocol === 'http:' && classifyAddress(address) !== 'loopback') {
      throw new FetchFailed(`http is allowed only to a loopback address; ${url.hostname} is not: use https`)
    }
  }
}

function checkScheme(url: URL, policy: IssuerFetchPolicy): void {
  if (url.protocol === 'https:') return
  if (url.protocol === 'http:' && policy.allowHttp) return
  throw new FetchFailed(
    url.protocol === 'http:'
      ? `${url.href} is http, allowed only to a loopback address when the server runs with --allow-http-issuers; use https`
      : `${url.protocol} is not https`,
  )
}

function checkedLookup(url: URL, policy: IssuerFetchPolicy): LookupFunction {
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
      () => callback(new FetchFailed(`${hostname} does not resolve`), '', 0),
    )
  }
}

/**
 * GETs `raw` under the policy and returns its body as text; throws `FetchFailed` saying why not (a
 * refused address, no answer within 10 s, an answer other than 200, more than 2 MiB).
 */
export async function fetchForIssuer(
  raw: string,
  policy: IssuerFetchPolicy,
  accept: string,
): Promise<string> {
  const round = currentRound()
  if (!round) return fetchNow(raw, policy, accept)
  // Inside a flow that holds a transaction: never fetch here (see server/pipeline/writes/outside-work.ts).
  const key = `issuer-fetch ${policy.allowHttp ? 'http' : 'https'} ${accept} ${raw}`
  const done = round.outside.get(key) as { text: string } | { failed: string } | undefined
  if (done) {
    if ('failed' in done) throw new FetchFailed(done.failed)
    return done.text
  }
  if (round.round >= MAX_OUTSIDE_ROUNDS) {
    throw new FetchFailed(`${raw} not fetched: one request may fetch at most ${MAX_OUTSIDE_ROUNDS} documents`)
  }
  throw new OutsideWorkNeeded(raw, async () => {
    try {
      round.outside.set(key, { text: await fetchNow(raw, policy, accept) })
    } catch (error) {
      if (!(error instanceof FetchFailed)) throw error
      round.outside.set(key, { failed: error.message })
    }
  })
}

async function fetchNow(raw: string, policy: IssuerFetchPolicy, accept: string): Promise<string> {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw new FetchFailed(`${raw} is not a URL`)
  }
  checkScheme(url, policy)
  if (url.username || url.password) throw new FetchFailed(`${url.host}: a URL with a user name is refused`)
  const host = hostOf(url)
  if (isIP(host)) checkAddresses(url, [host], policy)
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest
  return new Promise<string>((resolve, reject) => {
    let settled = false
    const finish = (error: FetchFailed | null, body?: string) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      if (error) reject(error)
      else resolve(body!)
    }
    const req = send(
      url,
      {
        method: 'GET',
        headers: { accept, 'user-agent': 'rwa-issuers/1' },
        lookup: checkedLookup(url, policy),
        agent: false,
      },
      (res: IncomingMessage) => {
        const status = res.statusCode ?? 0
        if (status !== 200) {
          res.destroy()
          return finish(
            new FetchFailed(
              status >= 300 && status < 400
                ? `${url.href} answered ${status} (redirects are not followed)`
                : `${url.href} answered ${status}`,
            ),
          )
        }
        const chunks: Buffer[] = []
        let read = 0
        res.on('data', (chunk: Buffer) => {
          read += chunk.length
          if (read > ISSUER_FETCH_MAX_BYTES) {
            res.destroy()
            finish(
              new FetchFailed(`${url.href} answered more than ${ISSUER_FETCH_MAX_BYTES / 1024 / 1024} MiB`),
            )
            return
          }
          chunks.push(chunk)
        })
        res.on('end', () => finish(null, Buffer.concat(chunks).toString('utf8')))
        res.on('error', (error) => finish(new FetchFailed(`${url.href}: ${error.message}`)))
      },
    )
    const timer = setTimeout(() => {
      finish(new FetchFailed(`${url.href} gave no answer within ${ISSUER_FETCH_TIMEOUT_MS / 1000} s`))
      req.destroy()
    }, ISSUER_FETCH_TIMEOUT_MS)
    req.on('error', (error: Error & { code?: string }) =>
      finish(
        error instanceof FetchFailed
          ? error
          : new FetchFailed(`cannot fetch ${url.href}: ${error.code ?? error.message}`),
      ),
    )
    req.end()
  })
}
