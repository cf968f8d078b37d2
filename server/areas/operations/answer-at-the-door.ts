import type { IncomingMessage, ServerResponse } from 'node:http'
import { isPubliclyLimited, type OperationSpec } from '../../../src/contract/operation.js'
import type { AppContext } from '../../pipeline/context.js'
import type { DoorAnswers } from '../../platform/http/node-server.js'
import { type PreparedAnswer, preparedStatus, writePrepared } from '../../platform/http/prepared-answer.js'
import { countedAtTheDoor } from '../../platform/limits/public-gate.js'
import { recordAnswer, requestIdOf } from './observe-requests.js'

/*
 * Public answers whose bytes do not change (the price list), given by the Node server itself once the
 * gate has let the request pass, before the app: no Request, no Context, no router, no middleware
 * chain, for the same answer. What the app gives every request is given here by the same functions:
 * the request id (`requestIdOf`), the per-client bucket (the gate's, at the door, as the app's
 * middleware relies on it: a request it has not counted goes to the app), the prepared bytes with
 * their ETag, 304 and `Cache-Control` (`preparedStatus`, `writePrepared`), the metrics and the log
 * line (`recordAnswer`). Only the plainest request is answered here: a GET over HTTP/1.1 of exactly the
 * route's path, with no query string and no body, and a Host the adapter takes as it is; every other
 * (HEAD, another method, a query, a trailing slash, an absolute URL, HTTP/1.0, a declared body, a Host
 * to check) goes to the app, which answers it or refuses it as before. docs/performance.md, "Fourth pass: pricing at the door".
 */

/** A public operation without parameters, and its prepared answer (undefined: not ready, the app answers). */
export interface DoorRoute {
  operation: OperationSpec
  prepared: () => PreparedAnswer | undefined
}

/**
 * A Host header @hono/node-server takes as it is, without parsing the URL (its `reValidHost`, version
 * 2.1.8): a lowercase name or IPv4 address, and a port of 4 or 5 digits from 1000. Any other Host is
 * the adapter's to check (an invalid one is refused: server/platform/http/node-server.ts), so the
 * request goes to the app; this only has to be no wider than what the adapter accepts.
 */
const PLAIN_HOST = /^[a-z0-9._-]+(?::(?:[1-5]\d{3,4}|[6-9]\d{3}))?$/

interface DoorEntry {
  route: string
  limited: boolean
  prepared: () => PreparedAnswer | undefined
}

export function answersAtTheDoor(ctx: AppContext, routes: readonly DoorRoute[]): DoorAnswers {
  const byPath = new Map<string, DoorEntry>()
  for (const { operation, prepared } of routes) {
    // Nothing is checked here that the app would check: no key, no role, no parameter, no query.
    if (operation.method !== 'get' || operation.access !== 'public' || operation.path.includes('{')) {
      throw new Error(`${operation.operationId} cannot be answered at the door`)
    }
    byPath.set(operation.path, {
      route: operation.path,
      limited: isPubliclyLimited(operation),
      prepared,
    })
  }
  const { logger, metrics } = ctx
  const rate = ctx.publicLimit.rate
  return {
    answer(req: IncomingMessage, res: ServerResponse): boolean {
      if (req.method !== 'GET') return false
      const entry = byPath.get(req.url as string)
      if (entry === undefined || req.httpVersion !== '1.1') return false
      const headers = req.headers
      if (headers['content-length'] !== undefined || headers['transfer-encoding'] !== undefined) return false
      const host = headers.host
      if (host === undefined || !PLAIN_HOST.test(host)) return false
      // The app's bucket middleware counts a request the gate has not (one carrying a well-formed key).
      if (entry.limited && rate !== null && !countedAtTheDoor(req)) return false
      const prepared = entry.prepared()
      if (prepared === undefined) return false
      const started = performance.now()
      const given = headers['x-request-id']
      const requestId = requestIdOf(typeof given === 'string' ? given : undefined)
      res.setHeader('X-Request-Id', requestId)
      const status = preparedStatus(prepared, headers['if-none-match'])
      recordAnswer(logger, metrics, started, requestId, 'GET', entry.route, entry.route, status)
      writePrepared(res, prepared, status)
      return true
    },
  }
}
