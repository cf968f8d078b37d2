import type { Server } from 'node:http'
import { connect } from 'node:net'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { PRICING } from '../../../src/contract/pricing.js'
import { createDoorAnswers } from '../../../server/app.js'
import type { AppContextOptions } from '../../../server/pipeline/context.js'
import { createHttpServer } from '../../../server/platform/http/node-server.js'
import { createHarness, type Harness } from '../../support/harness.js'
import { Scrape } from '../../support/prometheus.js'

/*
 * The price list answered by the Node server before the app (server/areas/operations/answer-at-the-door.ts):
 * the same bytes and headers as the app's answer, the same bucket, metrics and log line. Each test
 * serves one harness instance twice over loopback, once with the door and once without it (the app
 * answering everything, as before), sends both the same raw requests, and compares the answers byte for
 * byte (the Date header and generated request ids aside).
 */

let h: Harness | undefined
const servers: Server[] = []
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve))
  await h?.close()
  h = undefined
})

interface Served {
  base: { port: number }
  /** How many requests reached the app (its fetch). */
  appCalls: () => number
}

async function serve(harness: Harness, withDoor: boolean): Promise<Served> {
  let calls = 0
  const door = createDoorAnswers(harness.ctx)
  const server = createHttpServer(
    (request, env) => {
      calls++
      return harness.app.fetch(request, env)
    },
    {
      logError: (message, error) => harness.ctx.logError(message, error),
      gate: () => harness.ctx.publicGate,
      door: withDoor ? () => door : undefined,
    },
  )
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { base: { port: (server.address() as AddressInfo).port }, appCalls: () => calls }
}

/**
 * The raw bytes answered to `request` (sent as is, `Connection: close`), from loopback address `from`.
 * The socket is not half-closed: Node's server would end it before an answer that waits on Redis.
 */
function raw(port: number, request: string, from = '127.0.0.1'): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1', localAddress: from }, () => socket.write(request))
    let answer = ''
    socket.setEncoding('latin1')
    socket.on('data', (chunk) => {
      answer += chunk
    })
    socket.on('error', reject)
    socket.on('close', () => resolve(answer))
  })
}

/** The parts of an answer that differ between two answers of the same request: the date, a new UUID. */
const normalized = (answer: string) =>
  answer
    .replace(/\r\nDate: [^\r]*/, '\r\nDate: (date)')
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '(uuid)')

const request = (line: string, headers: string[] = []) =>
  `${line}\r\n${['Host: rwa.test', ...headers, 'Connection: close'].join('\r\n')}\r\n\r\n`

async function start(options: Partial<AppContextOptions> = {}) {
  h = await createHarness(options)
  return { h, door: await serve(h, true), app: await serve(h, false) }
}

const PRICING_PATH = '/console/billing/pricing'
const requestLines = () => h!.logRecords().filter((r) => r.msg === 'request')

describe('the price list at the door', () => {
  it('answers the plain GET itself, 200 and 304, with the bytes and headers the app answers', async () => {
    const { door, app } = await start()
    const first = await raw(app.base.port, request(`GET ${PRICING_PATH} HTTP/1.1`))
    const etag = /\r\nETag: ("[\w-]{27}")\r\n/.exec(first)![1]!
    expect(first.endsWith(`\r\n\r\n${JSON.stringify(PRICING)}`)).toBe(true)
    const answeredAtTheDoor = [
      request(`GET ${PRICING_PATH} HTTP/1.1`),
      request(`GET ${PRICING_PATH} HTTP/1.1`, ['X-Request-Id: mine-0001']),
      request(`GET ${PRICING_PATH} HTTP/1.1`, ['X-Request-Id: not well formed']),
      request(`GET ${PRICING_PATH} HTTP/1.1`, [`If-None-Match: ${etag}`, 'X-Request-Id: r-304']),
      request(`GET ${PRICING_PATH} HTTP/1.1`, [`If-None-Match: W/${etag}`]),
      request(`GET ${PRICING_PATH} HTTP/1.1`, [`If-None-Match: "other", ${etag}`]),
      request(`GET ${PRICING_PATH} HTTP/1.1`, ['If-None-Match: *']),
      request(`GET ${PRICING_PATH} HTTP/1.1`, ['If-None-Match: "stale"']),
    ]
    for (const sent of answeredAtTheDoor) {
      const before = { door: door.appCalls(), app: app.appCalls() }
      const [byDoor, byApp] = [await raw(door.base.port, sent), await raw(app.base.port, sent)]
      expect(normalized(byDoor), sent).toBe(normalized(byApp))
      // The door answered without the app; without the door the app did.
      expect([door.appCalls() - before.door, app.appCalls() - before.app], sent).toEqual([0, 1])
    }
    const notModified = await raw(door.base.port, answeredAtTheDoor[3]!)
    expect(notModified).toMatch(/^HTTP\/1\.1 304 Not Modified\r\nX-Request-Id: r-304\r\nETag: "/)
    expect(notModified.endsWith('\r\n\r\n')).toBe(true)
  })

  it('leaves every other request to the app: HEAD, another method, a query, a trailing slash, HTTP/1.0, a body, a Host to check', async () => {
    const { door, app } = await start()
    const toTheApp = [
      request(`HEAD ${PRICING_PATH} HTTP/1.1`, ['X-Request-Id: head-1']),
      request(`POST ${PRICING_PATH} HTTP/1.1`, ['X-Request-Id: post-1', 'Content-Length: 0']),
      request(`GET ${PRICING_PATH}?a=1 HTTP/1.1`, ['X-Request-Id: query-1']),
      request(`GET ${PRICING_PATH}? HTTP/1.1`, ['X-Request-Id: query-2']),
      request(`GET ${PRICING_PATH}/ HTTP/1.1`, ['X-Request-Id: slash-1']),
      request(`GET http://rwa.test${PRICING_PATH} HTTP/1.1`, ['X-Request-Id: absolute-1']),
      `GET ${PRICING_PATH} HTTP/1.0\r\nHost: rwa.test\r\nX-Request-Id: old-1\r\n\r\n`,
      request(`GET ${PRICING_PATH} HTTP/1.1`, ['X-Request-Id: body-1', 'Content-Length: 2']).replace(
        /\r\n\r\n$/,
        '\r\n\r\n{}',
      ),
      request('GET /console/billing/plans HTTP/1.1'),
      // A Host the adapter parses or refuses (server/platform/http/node-server.ts): its to judge.
      `GET ${PRICING_PATH} HTTP/1.1\r\nHost: exa%41mple.com\r\nConnection: close\r\n\r\n`,
      `GET ${PRICING_PATH} HTTP/1.1\r\nHost: a b\r\nConnection: close\r\n\r\n`,
      `GET ${PRICING_PATH} HTTP/1.1\r\nHost: RWA.test:80\r\nConnection: close\r\n\r\n`,
      `GET ${PRICING_PATH} HTTP/1.1\r\nHost: [::1]:4600\r\nConnection: close\r\n\r\n`,
    ]
    for (const sent of toTheApp) {
      const before = { door: door.appCalls(), app: app.appCalls() }
      const [byDoor, byApp] = [await raw(door.base.port, sent), await raw(app.base.port, sent)]
      expect(normalized(byDoor), sent).toBe(normalized(byApp))
      // Handed on as without the door (to the app, or refused by the adapter before it).
      expect(door.appCalls() - before.door, sent).toBe(app.appCalls() - before.app)
    }
    // All but the two Hosts the adapter refuses reached the app.
    expect(app.appCalls()).toBe(toTheApp.length - 2)
  })

  it('logs one line and counts each answer as the app does', async () => {
    const { door, app } = await start()
    const sent = [
      request(`GET ${PRICING_PATH} HTTP/1.1`, ['X-Request-Id: log-200']),
      request(`GET ${PRICING_PATH} HTTP/1.1`, ['X-Request-Id: log-304', 'If-None-Match: *']),
    ]
    const scrape = async () => Scrape.parse(await h!.ctx.metrics.text())
    const lines: Record<string, any>[][] = []
    const counted: number[][] = []
    for (const served of [door, app]) {
      const before = await scrape()
      const from = requestLines().length
      for (const one of sent) await raw(served.base.port, one)
      const after = await scrape()
      lines.push(requestLines().slice(from))
      counted.push(
        [200, 304].map(
          (status) =>
            after.value('rwa_http_requests_total', {
              method: 'GET',
              route: PRICING_PATH,
              status: String(status),
            }) -
            before.value('rwa_http_requests_total', {
              method: 'GET',
              route: PRICING_PATH,
              status: String(status),
            }),
        ),
      )
      const latency = (s: Scrape) =>
        s.histogram('rwa_http_request_duration_seconds', { method: 'GET', route: PRICING_PATH })?.count ?? 0
      expect(latency(after) - latency(before)).toBe(2)
    }
    expect(counted).toEqual([
      [1, 1],
      [1, 1],
    ])
    const [byDoor, byApp] = lines as [Record<string, any>[], Record<string, any>[]]
    expect(byDoor.map((line) => line.request_id)).toEqual(['log-200', 'log-304'])
    // The same fields in the same order, with the same values but the time and the duration.
    const same = (line: Record<string, any>) => ({ ...line, time: undefined, duration_ms: undefined })
    expect(byDoor.map((line) => Object.keys(line))).toEqual(byApp.map((line) => Object.keys(line)))
    expect(byDoor.map(same)).toEqual(byApp.map(same))
    expect(byDoor[0]).toMatchObject({
      level: 'info',
      method: 'GET',
      route: PRICING_PATH,
      path: PRICING_PATH,
      status: 200,
    })
    expect(byDoor[0]!.duration_ms).toBeGreaterThanOrEqual(0)
  })

  it('counts the plain GET against its client bucket: refused at the gate with the same 429 as without the door', async () => {
    const rate = { perSecond: 1, burst: 2 }
    const { door, app } = await start({ publicRateLimit: rate, publicHoldMs: 0 })
    const sent = request(`GET ${PRICING_PATH} HTTP/1.1`, ['X-Request-Id: bucket-1'])
    const answers: string[][] = []
    for (const [served, from] of [
      [door, '127.0.0.21'],
      [app, '127.0.0.22'],
    ] as const) {
      const statuses: string[] = []
      for (let i = 0; i < rate.burst + 1; i++) statuses.push(await raw(served.base.port, sent, from))
      answers.push(statuses)
    }
    const [byDoor, byApp] = answers as [string[], string[]]
    expect(byDoor.map((answer) => answer.slice(9, 12))).toEqual(['200', '200', '429'])
    const address = (answer: string) => normalized(answer).replace(/127\.0\.0\.2[12]/g, '(address)')
    expect(byDoor.map(address)).toEqual(byApp.map(address))
  })

  it('leaves to the app a request with a key, which its middleware counts against the bucket', async () => {
    const rate = { perSecond: 1, burst: 2 }
    const { door } = await start({ publicRateLimit: rate, publicHoldMs: 0 })
    // Well formed but unknown: the gate lets it pass uncounted, the route's middleware counts it.
    const withKey = request(`GET ${PRICING_PATH} HTTP/1.1`, [`X-API-Key: rwa_live_${'a'.repeat(43)}`])
    const statuses: string[] = []
    for (let i = 0; i < rate.burst + 1; i++) {
      const before = door.appCalls()
      statuses.push((await raw(door.base.port, withKey, '127.0.0.23')).slice(9, 12))
      expect(door.appCalls() - before).toBe(1)
    }
    expect(statuses).toEqual(['200', '200', '429'])
  })
})
