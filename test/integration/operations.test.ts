import { unlinkSync } from 'node:fs'
import { request as httpRequest } from 'node:http'
import { afterEach, describe, expect, it } from 'vitest'
import { Scrape } from '../support/prometheus.js'
import { type ServerProcess, startServerProcess } from '../support/server-process.js'
import { TEST_DIALECT } from '../support/backends.js'

let server: ServerProcess | undefined
afterEach(async () => {
  await server?.cleanup()
  server = undefined
})

const get = (url: string, path: string, headers: Record<string, string> = {}) =>
  fetch(new URL(path, url), { headers })

/** An answer's status and header lines as Node received them (names as sent, repeats kept). */
function rawAnswer(
  url: string,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: unknown,
): Promise<{ status: number; lines: Array<[string, string]>; text: string }> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body)
    const req = httpRequest(
      new URL(path, url),
      { method, headers: payload ? { ...headers, 'content-type': 'application/json' } : headers },
      (res) => {
        let text = ''
        res.setEncoding('utf8')
        res.on('data', (chunk: string) => {
          text += chunk
        })
        res.on('end', () => {
          const lines: Array<[string, string]> = []
          for (let i = 0; i < res.rawHeaders.length; i += 2)
            lines.push([res.rawHeaders[i]!, res.rawHeaders[i + 1]!])
          resolve({ status: res.statusCode!, lines, text })
        })
      },
    )
    req.on('error', reject)
    req.end(payload)
  })
}

/** The values of header `name` in an answer, however its name was cased. */
const valuesOf = (lines: Array<[string, string]>, name: string) =>
  lines.filter(([n]) => n.toLowerCase() === name.toLowerCase()).map(([, v]) => v)

describe('operating the real server process', () => {
  it('is live and ready once migrations ran, and logs one JSON line per request with its id', async () => {
    server = await startServerProcess()
    const health = await get(server.url, '/healthz')
    expect(health.status).toBe(200)
    const ready = await get(server.url, '/readyz')
    expect(ready.status).toBe(200)
    expect(await ready.json()).toEqual({
      status: 'ready',
      checks: [
        { name: 'database', ready: true },
        { name: 'migrations', ready: true },
      ],
    })

    const sent = [
      await get(server.url, '/console/billing/pricing', { 'X-Request-Id': 'probe-0001' }),
      await get(server.url, '/console/rwa/tokens/tok_nope', { 'x-api-key': server.adminKey }),
      await get(server.url, '/console/billing/stats', { 'x-api-key': `rwa_live_${'x'.repeat(43)}` }),
    ]
    const ids = sent.map((res) => res.headers.get('x-request-id')!)
    expect(ids[0]).toBe('probe-0001')
    expect(((await sent[1]!.json()) as { request_id: string }).request_id).toBe(ids[1])

    expect(await server.stop()).toBe(0)
    const lines = server.logRecords() // every line parses: nothing but JSON on stderr
    const requestLines = lines.filter((line) => line.msg === 'request')
    expect(requestLines).toHaveLength(2 + sent.length)
    for (const [i, id] of ids.entries()) {
      const mine = requestLines.filter((line) => line.request_id === id)
      expect(mine).toHaveLength(1)
      expect(mine[0]!.status).toBe(sent[i]!.status)
    }
    expect(requestLines.find((l) => l.request_id === ids[1])).toMatchObject({
      level: 'info',
      method: 'GET',
      route: '/console/rwa/tokens/{id}',
      status: 404,
      org_id: 'admin',
      key_id: expect.stringMatching(/^key_/),
    })
    expect(lines.map((line) => line.msg)).toContain('SIGTERM received, shutting down')
  })

  // A file that can go away is SQLite's; PostgreSQL's database is checked by the same 'database' ping.
  it.runIf(TEST_DIALECT === 'sqlite')(
    'is not ready while its database file is gone, and says which check failed',
    async () => {
      server = await startServerProcess()
      expect((await get(server.url, '/readyz')).status).toBe(200)
      for (const suffix of ['', '-wal', '-shm']) unlinkSync(`${server.storage.dbPath}${suffix}`)
      const res = await get(server.url, '/readyz')
      expect(res.status).toBe(503)
      expect(res.headers.get('content-type')).toBe('application/problem+json')
      expect(await res.json()).toMatchObject({
        code: 'unavailable',
        detail: 'Not ready: database (the database file is gone)',
        checks: [
          { name: 'database', ready: false, detail: 'the database file is gone' },
          { name: 'migrations', ready: true },
        ],
      })
      // The process itself still answers: restart it rather than route to it.
      expect((await get(server.url, '/healthz')).status).toBe(200)
    },
  )

  // Behind Node these headers go on Node's response itself, not through hono's (server/platform/http/answer-headers.ts):
  // every kind of answer must still carry each exactly once.
  it('puts X-Request-Id on every answer and the RateLimit headers on every answer after authentication, once each', async () => {
    server = await startServerProcess()
    const admin = { 'x-api-key': server.adminKey }
    const created = await rawAnswer(server.url, 'POST', '/console/billing/keys', admin, {
      org_id: 'acme',
      name: 'acme-key',
    })
    expect(created.status).toBe(201)
    const acme = { 'x-api-key': (JSON.parse(created.text) as { api_key: string }).api_key }

    const answers = {
      public: await rawAnswer(server.url, 'GET', '/console/billing/pricing', { 'X-Request-Id': 'mine-1' }),
      unauthenticated: await rawAnswer(server.url, 'GET', '/console/billing/stats'),
      found: await rawAnswer(server.url, 'GET', '/console/billing/usage/acme', acme),
      notFound: await rawAnswer(server.url, 'DELETE', '/console/billing/keys/key_nope', acme),
      invalid: await rawAnswer(server.url, 'POST', '/console/billing/keys', acme, { org_id: 'acme' }),
      forbidden: await rawAnswer(server.url, 'GET', '/console/billing/stats', acme),
    }
    expect(Object.values(answers).map((a) => a.status)).toEqual([200, 401, 200, 404, 400, 403])
    for (const [kind, answer] of Object.entries(answers)) {
      const ids = valuesOf(answer.lines, 'x-request-id')
      expect(ids, kind).toHaveLength(1)
      if (answer.status >= 400) expect(JSON.parse(answer.text).request_id, kind).toBe(ids[0])
      const limited = !['public', 'unauthenticated'].includes(kind)
      for (const name of ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset']) {
        expect(valuesOf(answer.lines, name), `${kind} ${name}`).toHaveLength(limited ? 1 : 0)
      }
      expect(valuesOf(answer.lines, 'content-length'), kind).toEqual([String(Buffer.byteLength(answer.text))])
    }
    expect(valuesOf(answers.public.lines, 'x-request-id')).toEqual(['mine-1'])
    expect(valuesOf(answers.found.lines, 'ratelimit-remaining')).toEqual(['59'])
    expect(valuesOf(answers.forbidden.lines, 'ratelimit-remaining')).toEqual(['56'])

    // The free tier's 60 a minute: the 61st is refused, with Retry-After beside the RateLimit headers.
    let refused: Awaited<ReturnType<typeof rawAnswer>> | undefined
    for (let i = 0; i < 60 && refused === undefined; i++) {
      const answer = await rawAnswer(server.url, 'GET', '/console/billing/usage/acme', acme)
      if (answer.status === 429) refused = answer
    }
    expect(refused?.status).toBe(429)
    expect(valuesOf(refused!.lines, 'ratelimit-remaining')).toEqual(['0'])
    expect(valuesOf(refused!.lines, 'retry-after')).toHaveLength(1)
    expect(valuesOf(refused!.lines, 'x-request-id')).toHaveLength(1)
  })

  it('answers 503 on /readyz from SIGTERM on while it drains and still serves, then stops', async () => {
    server = await startServerProcess({ env: { RWA_DRAIN_SECONDS: '60' } })
    expect((await get(server.url, '/readyz')).status).toBe(200)
    server.process.kill('SIGTERM')
    await server.waitForLogRecord((r) => r.msg === 'SIGTERM received, draining for 60 s: /readyz answers 503')

    const ready = await get(server.url, '/readyz')
    expect(ready.status).toBe(503)
    expect(await ready.json()).toMatchObject({
      checks: [{ name: 'shutdown', ready: false, detail: 'the server is shutting down' }],
    })
    expect((await get(server.url, '/healthz')).status).toBe(200)
    const read = await get(server.url, '/console/billing/stats', { 'x-api-key': server.adminKey })
    expect(read.status).toBe(200)

    // A second signal ends the drain: the server closes cleanly instead of waiting out the 60 s.
    server.process.kill('SIGTERM')
    const exited = await server.process
    expect(exited.exitCode).toBe(0)
    const messages = server.logRecords().map((line) => line.msg)
    expect(messages).toContain('SIGTERM received again, shutting down now')
  })

  it('serves /metrics without a key on --metrics-port, and only to the admin key on the API port', async () => {
    server = await startServerProcess({ env: { RWA_METRICS_PORT: '0' } })
    const metricsUrl = /metrics on (http:\/\/[^\s"]+)/.exec(server.stderr())?.[1]
    expect(metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/)
    const scrape = async () => {
      const res = await fetch(metricsUrl!)
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8')
      return Scrape.parse(await res.text())
    }

    const before = await scrape()
    expect(before.families.process_cpu_seconds_total?.type).toBe('counter')
    expect(before.families.process_resident_memory_bytes?.type).toBe('gauge')
    expect(before.families.nodejs_eventloop_lag_seconds?.type).toBe('gauge')
    for (let i = 0; i < 2; i++) await get(server.url, '/console/billing/pricing')
    const after = await scrape()
    const pricing = { method: 'GET', route: '/console/billing/pricing', status: '200' }
    expect(
      after.value('rwa_http_requests_total', pricing) - before.value('rwa_http_requests_total', pricing),
    ).toBe(2)

    expect((await fetch(metricsUrl!.replace('/metrics', '/readyz'))).status).toBe(404)
    expect((await get(server.url, '/metrics')).status).toBe(401)
    expect((await get(server.url, '/metrics', { 'x-api-key': server.adminKey })).status).toBe(200)
  })

  it('logs pretty lines when asked, and keeps the start-up lines at --log-level warn', async () => {
    server = await startServerProcess({ env: { RWA_LOG_FORMAT: 'pretty' } })
    const res = await get(server.url, '/console/billing/pricing', { 'X-Request-Id': 'pretty-1' })
    expect(res.status).toBe(200)
    expect(await server.stop()).toBe(0)
    const line = server
      .stderr()
      .split('\n')
      .find((l) => l.includes('pretty-1'))
    expect(line).toMatch(/INFO.*GET \/console\/billing\/pricing 200 [\d.]+ ms .*"request_id":"pretty-1"/)
    expect(() => JSON.parse(line!)).toThrow()
    await server.cleanup()

    // A path with %0a (and an escape sequence) cannot forge a line or reach the terminal raw.
    server = await startServerProcess({ env: { RWA_LOG_FORMAT: 'pretty' } })
    const forged = await get(server.url, '/x%0a12:00:00.000 INFO: forged%1b%5b2J%e2%80%ae', {
      'X-Request-Id': 'pretty-2',
    })
    expect(forged.status).toBe(404)
    expect(await server.stop()).toBe(0)
    const lines = server.stderr().split('\n')
    const logged = lines.find((l) => l.includes('pretty-2'))
    expect(logged).toContain('/x\\x0a12:00:00.000 INFO: forged\\x1b[2J\\u202e 404')
    expect(lines.filter((l) => l.includes('forged'))).toEqual([logged])
    expect(server.stderr()).not.toContain('\u001b[2J')
    expect(server.stderr()).not.toContain('\u202e')
    await server.cleanup()

    server = await startServerProcess({ env: { RWA_LOG_LEVEL: 'warn' } })
    expect(server.adminKey).toMatch(/^rwa_live_/)
    await get(server.url, '/console/billing/pricing')
    expect(await server.stop()).toBe(0)
    expect(server.logRecords().filter((l) => l.msg === 'request')).toEqual([])
  })

  it('refuses a bad log setting at start, naming the variable and the flag', async () => {
    await expect(startServerProcess({ env: { RWA_LOG_FORMAT: 'xml' } })).rejects.toThrow(
      /RWA_LOG_FORMAT \(--log-format\)/,
    )
  })
})
