import { request as httpRequest, type IncomingMessage } from 'node:http'
import { request as httpsRequest } from 'node:https'
import type { LookupFunction } from 'node:net'

/*
 * One POST of a webhook body, and what became of it in words: the delivery worker's (through
 * ./destination.ts, which checks where it goes first) and `rwa listen`'s, so that both say why a POST
 * failed the same way. Redirects are not followed, a POST gives up after 10 s, and at most 64 KiB of the
 * answer is read.
 */

/** The outcome of one POST: the endpoint's status, or why there is none. */
export interface PostOutcome {
  statusCode: number | null
  error: string | null
}

export const DELIVERY_TIMEOUT_MS = 10_000
export const MAX_ANSWER_BYTES = 64 * 1024

/** An error of the lookup that refuses where a POST would go: reported as `refused: <message>`. */
export class PostRefused extends Error {}

/** What the system's errors before any answer mean, by their code. */
const CAUSES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection closed',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ENOTFOUND: 'the host name does not resolve (DNS)',
  EAI_AGAIN: 'the host name could not be resolved now (DNS)',
}

/**
 * Why a POST got no answer, for a person: `could not connect: connection refused (connect ECONNREFUSED
 * 127.0.0.1:9)`, the system's own message kept for the details.
 */
export function failureOf(error: Error & { code?: string }): string {
  if (error instanceof PostRefused) return `refused: ${error.message}`
  const cause = error.code === undefined ? undefined : CAUSES[error.code]
  return `could not connect: ${cause ? `${cause} (${error.message})` : error.message}`
}

/**
 * POSTs `body` as JSON to `url`; a 2xx is a success, anything else (a redirect included: never
 * followed) a failure with its reason. `lookup` replaces the request's DNS lookup (the worker's checks
 * every address it hands over).
 */
export function postJson(
  url: URL,
  body: string,
  headers: Record<string, string>,
  options: { lookup?: LookupFunction } = {},
): Promise<PostOutcome> {
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest
  return new Promise<PostOutcome>((resolve) => {
    let settled = false
    const finish = (outcome: PostOutcome) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      resolve(outcome)
    }
    const req = send(
      url,
      {
        method: 'POST',
        headers: {
          ...headers,
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
          'user-agent': 'rwa-webhooks/1',
        },
        ...(options.lookup ? { lookup: options.lookup } : {}),
        // A fresh connection per POST: a pooled one could have been made to an address since refused,
        // and the check is per delivery.
        agent: false,
      },
      (res: IncomingMessage) => {
        const status = res.statusCode ?? 0
        let read = 0
        res.on('data', (chunk: Buffer) => {
          read += chunk.length
          // The answer is not used beyond its status: stop reading past 64 KiB.
          if (read > MAX_ANSWER_BYTES) res.destroy()
        })
        const done = () =>
          finish(
            status >= 200 && status < 300
              ? { statusCode: status, error: null }
              : {
                  statusCode: status,
                  error:
                    status >= 300 && status < 400
                      ? `the endpoint answered ${status} (redirects are not followed)`
                      : `the endpoint answered ${status}`,
                },
          )
        res.on('end', done)
        res.on('close', done)
        res.on('error', done)
      },
    )
    const timer = setTimeout(() => {
      finish({ statusCode: null, error: `no answer within ${DELIVERY_TIMEOUT_MS / 1000} s` })
      req.destroy()
    }, DELIVERY_TIMEOUT_MS)
    req.on('error', (error) => finish({ statusCode: null, error: failureOf(error) }))
    req.end(body)
  })
}
