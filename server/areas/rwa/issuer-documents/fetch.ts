import { request as httpRequest, type IncomingMessage } from 'node:http'
import { request as httpsRequest } from 'node:https'
import { isIP } from 'node:net'
import {
  type AddressPolicy,
  checkAddresses,
  checkedLookup,
  checkScheme,
  hostOf,
} from '../../../platform/net/checked-lookup.js'
import { currentRound, MAX_OUTSIDE_ROUNDS, OutsideWorkNeeded } from '../../../pipeline/writes/outside-work.js'

/*
 * What the server fetches for trusted issuers (docs/issuers.md, "Resolution"): a did:web document and
 * the status lists its credentials name. Both are chosen by someone outside, so they follow the address
 * policy of webhooks (server/platform/net/checked-lookup.ts): https to public addresses only; http, and
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

const refuse = (message: string) => new FetchFailed(message)

const rules = (policy: IssuerFetchPolicy): AddressPolicy => ({
  allowHttp: policy.allowHttp,
  flag: '--allow-http-issuers',
})

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
  checkScheme(url, rules(policy), refuse)
  if (url.username || url.password) throw new FetchFailed(`${url.host}: a URL with a user name is refused`)
  const host = hostOf(url)
  if (isIP(host)) checkAddresses(url, [host], rules(policy), refuse)
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
        lookup: checkedLookup(url, rules(policy), refuse),
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
