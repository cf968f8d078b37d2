import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import {
  ApiProblemError,
  ConnectionError,
  createClient,
  UnexpectedResponseError,
} from '../../src/client/index.js'

/*
 * The transport over real loopback HTTP, against a tiny server whose misbehaviour each test scripts:
 * dropped connections, problem details, bodies that break the contract.
 */

let server: Server | undefined
afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()))
  server = undefined
})

async function serve(
  handler: (req: IncomingMessage, res: ServerResponse, n: number) => void,
): Promise<string> {
  let n = 0
  server = createServer((req, res) => handler(req, res, ++n))
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

const okSchema = z.object({ ok: z.boolean() })

describe('HttpClient', () => {
  it('sends the key, parses the body with the schema and keeps the raw JSON', async () => {
    let seen: IncomingMessage | undefined
    const url = await serve((req, res) => {
      seen = req
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true,"extra":1}')
    })
    const client = createClient({ baseUrl: `${url}/`, apiKey: 'rwa_live_secret' })
    const response = await client.http.call({
      method: 'GET',
      path: '/x',
      query: { a: 1, b: undefined },
      schema: okSchema,
    })
    expect(response.data).toEqual({ ok: true })
    expect(response.raw).toEqual({ ok: true, extra: 1 })
    expect(seen?.headers['x-api-key']).toBe('rwa_live_secret')
    expect(seen?.url).toBe('/x?a=1')
    await client.close()
  })

  it('sends an Idempotency-Key with every keyed POST, the same on each retry, so a dropped POST is retried', async () => {
    const keys: Array<string | undefined> = []
    const url = await serve((req, res, n) => {
      keys.push(req.headers['idempotency-key'] as string | undefined)
      if (n === 1) req.socket.destroy()
      else res.writeHead(201, { 'content-type': 'application/json' }).end(`{"ok":true}`)
    })
    const client = createClient({ baseUrl: url, retryDelayMs: 10 })
    await client.governance.pauseToken({ params: { id: 'tok_1' }, body: {} }).catch(() => undefined)
    expect(keys).toHaveLength(2)
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/)
    expect(keys[1]).toBe(keys[0])
    await client.governance.pauseToken({ params: { id: 'tok_1' }, body: {} }).catch(() => undefined)
    expect(keys[2]).not.toBe(keys[0])
    await client.close()

    // A key given: the first POST carries it, the next ones KEY-2, KEY-3 (a rerun replays each).
    keys.length = 0
    const given = createClient({ baseUrl: url, idempotencyKey: 'deploy-42' })
    for (let i = 0; i < 3; i++)
      await given.governance.pauseToken({ params: { id: 'tok_1' }, body: {} }).catch(() => undefined)
    expect(keys).toEqual(['deploy-42', 'deploy-42-2', 'deploy-42-3'])
    await given.close()
  })

  it('retries an idempotent call whose connection was dropped, but never a POST without a key', async () => {
    const url = await serve((req, res, n) => {
      if (n === 1 || req.method === 'POST') req.socket.destroy()
      else res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}')
    })
    const client = createClient({ baseUrl: url, retryDelayMs: 10 })
    expect((await client.http.call({ method: 'GET', path: '/', schema: okSchema })).data).toEqual({
      ok: true,
    })
    await expect(
      client.http.call({ method: 'POST', path: '/', body: {}, schema: okSchema }),
    ).rejects.toBeInstanceOf(ConnectionError)
    await client.close()
  })

  it('turns problem details into ApiProblemError with status, code, detail and field errors', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(400, { 'content-type': 'application/problem+json' }).end(
        JSON.stringify({
          type: 'urn:rwa:problem:invalid_request',
          title: 'Invalid request',
          status: 400,
          detail: 'Invalid body: name: Too small',
          code: 'invalid_request',
          reason: 'invalid_field',
          context: { where: 'body' },
          errors: [{ path: 'name', message: 'Too small' }],
        }),
      )
    })
    const client = createClient({ baseUrl: url })
    const error = await client.http.call({ method: 'GET', path: '/', schema: okSchema }).catch((e) => e)
    expect(error).toBeInstanceOf(ApiProblemError)
    expect(error).toMatchObject({
      status: 400,
      code: 'invalid_request',
      reason: 'invalid_field',
      context: { where: 'body' },
      errors: [{ path: 'name', message: 'Too small' }],
    })
    await client.close()
  })

  it('reports a body that breaks the contract, and an error that is not problem details', async () => {
    const url = await serve((req, res) => {
      if (req.url === '/bad') res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":"yes"}')
      else res.writeHead(502, { 'content-type': 'text/html' }).end('<h1>Bad gateway</h1>')
    })
    const client = createClient({ baseUrl: url })
    await expect(client.http.call({ method: 'GET', path: '/bad', schema: okSchema })).rejects.toThrow(/ok: /)
    const gateway = await client.http
      .call({ method: 'GET', path: '/proxy', schema: okSchema })
      .catch((e) => e)
    expect(gateway).toBeInstanceOf(UnexpectedResponseError)
    expect(gateway.status).toBe(502)
    await client.close()
  })

  it('gives up with ConnectionError when nothing listens, after its retries', async () => {
    const client = createClient({ baseUrl: 'http://127.0.0.1:9', retries: 1, retryDelayMs: 10 })
    const error = await client.http.call({ method: 'GET', path: '/', schema: okSchema }).catch((e) => e)
    expect(error).toBeInstanceOf(ConnectionError)
    expect(error.reason).toBe('ECONNREFUSED')
    await client.close()
  })

  it('times out a server that never answers', async () => {
    const url = await serve(() => {
      // never respond
    })
    const client = createClient({ baseUrl: url, timeoutMs: 200, retries: 0 })
    const error = await client.http.call({ method: 'GET', path: '/', schema: okSchema }).catch((e) => e)
    expect(error).toBeInstanceOf(ConnectionError)
    expect(error.reason).toBe('HEADERS_TIMEOUT')
    await client.close()
    server?.closeAllConnections()
  })

  it('times out a body that stops coming, and says which phase took too long', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.write('{"ok":')
      // the rest never comes
    })
    const client = createClient({ baseUrl: url, timeoutMs: 200, retries: 0 })
    const error = await client.http.call({ method: 'GET', path: '/', schema: okSchema }).catch((e) => e)
    expect(error).toBeInstanceOf(ConnectionError)
    expect(error.reason).toBe('BODY_TIMEOUT')
    await client.close()
    server?.closeAllConnections()
  })

  it('sends the calls of one client over one kept-alive connection, with the JSON body', async () => {
    const sockets = new Set<unknown>()
    const bodies: string[] = []
    const url = await serve((req, res) => {
      sockets.add(req.socket)
      let body = ''
      req.on('data', (chunk) => (body += chunk))
      req.on('end', () => {
        bodies.push(`${req.method} ${req.headers['content-type'] ?? '-'} ${body}`)
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}')
      })
    })
    const client = createClient({ baseUrl: url })
    await client.http.call({ method: 'GET', path: '/a', schema: okSchema })
    await client.http.call({ method: 'POST', path: '/b', body: { n: 'é' }, schema: okSchema })
    expect(sockets.size).toBe(1)
    expect(bodies).toEqual(['GET - ', 'POST application/json {"n":"é"}'])
    await client.close()
  })

  describe('on a 429', () => {
    const rateLimited = (res: ServerResponse, retryAfter: string) =>
      res.writeHead(429, { 'content-type': 'application/problem+json', 'retry-after': retryAfter }).end(
        JSON.stringify({
          type: 'urn:rwa:problem:rate_limited',
          title: 'Rate limit exceeded',
          status: 429,
          detail: 'Rate limit of 60 requests per minute reached for organization acme; retry in 1 s',
          code: 'rate_limited',
          reason: 'rate_limited',
          context: { window: 'minute', limit: 60 },
        }),
      )

    it('throws at once by default, with the Retry-After seconds', async () => {
      let calls = 0
      const url = await serve((_req, res) => {
        calls++
        rateLimited(res, '1')
      })
      const client = createClient({ baseUrl: url })
      const error = await client.http.call({ method: 'GET', path: '/', schema: okSchema }).catch((e) => e)
      expect(error).toBeInstanceOf(ApiProblemError)
      expect(error).toMatchObject({ code: 'rate_limited', retryAfterSeconds: 1 })
      expect(calls).toBe(1)
      await client.close()
    })

    it('with rateLimitWaitSeconds, waits Retry-After and sends the call again, a POST too', async () => {
      const bodies: string[] = []
      const url = await serve((req, res, n) => {
        let body = ''
        req.on('data', (chunk) => (body += chunk))
        req.on('end', () => {
          bodies.push(body)
          if (n === 1) rateLimited(res, '1')
          else res.writeHead(201, { 'content-type': 'application/json' }).end('{"ok":true}')
        })
      })
      const waits: Array<{ seconds: number; waitedSeconds: number }> = []
      const client = createClient({
        baseUrl: url,
        rateLimitWaitSeconds: 5,
        onRateLimitWait: ({ seconds, waitedSeconds }) => waits.push({ seconds, waitedSeconds }),
      })
      const response = await client.http.call({ method: 'POST', path: '/', body: { a: 1 }, schema: okSchema })
      expect(response).toMatchObject({ status: 201, data: { ok: true } })
      expect(waits).toEqual([{ seconds: 1, waitedSeconds: 0 }])
      expect(bodies).toEqual(['{"a":1}', '{"a":1}'])
      await client.close()
    })

    it('with inProgressWaitSeconds, waits out a 409 idempotency_key_in_progress and sends the same key again', async () => {
      const keys: string[] = []
      const inProgress = (res: ServerResponse) =>
        res.writeHead(409, { 'content-type': 'application/problem+json', 'retry-after': '1' }).end(
          JSON.stringify({
            type: 'urn:rwa:problem:conflict',
            title: 'Conflict',
            status: 409,
            detail: 'A request with Idempotency-Key k is still running',
            code: 'conflict',
            reason: 'idempotency_key_in_progress',
            context: { idempotency_key: 'k' },
          }),
        )
      const url = await serve((req, res, n) => {
        keys.push(req.headers['idempotency-key'] as string)
        if (n <= 2) inProgress(res)
        else res.writeHead(201, { 'content-type': 'application/json' }).end('{"ok":true}')
      })
      const post = { method: 'POST' as const, path: '/', body: {}, schema: okSchema, idempotent: true }
      // By default the 409 is thrown at once.
      const once = createClient({ baseUrl: url, idempotencyKey: 'k' })
      const error = await once.http.call(post).catch((e) => e)
      expect(error).toMatchObject({ reason: 'idempotency_key_in_progress', retryAfterSeconds: 1 })
      expect(keys).toEqual(['k'])
      await once.close()

      const waits: number[] = []
      const client = createClient({
        baseUrl: url,
        idempotencyKey: 'k',
        inProgressWaitSeconds: 5,
        onInProgressWait: ({ waitedSeconds }) => waits.push(waitedSeconds),
      })
      expect(await client.http.call(post)).toMatchObject({ status: 201, data: { ok: true } })
      expect(waits).toEqual([0])
      expect(keys).toEqual(['k', 'k', 'k'])
      await client.close()
    })

    it('does not wait when Retry-After is beyond what is left of rateLimitWaitSeconds', async () => {
      let calls = 0
      const url = await serve((_req, res) => {
        calls++
        rateLimited(res, '60')
      })
      const waits: number[] = []
      const client = createClient({
        baseUrl: url,
        rateLimitWaitSeconds: 5,
        onRateLimitWait: ({ seconds }) => waits.push(seconds),
      })
      const error = await client.http.call({ method: 'GET', path: '/', schema: okSchema }).catch((e) => e)
      expect(error).toMatchObject({ code: 'rate_limited', retryAfterSeconds: 60 })
      expect(calls).toBe(1)
      expect(waits).toEqual([])
      await client.close()
    })
  })
})
