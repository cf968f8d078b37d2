import type { AddressInfo } from 'node:net'
import { serve } from '@hono/node-server'
import { Hono } from 'hono'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bodyLimit } from '../../../server/platform/http/body-limit.js'

// Over a real socket: the header fast path only applies behind @hono/node-server.
const LIMIT = 1024
let server: ReturnType<typeof serve>
let url: string

beforeAll(async () => {
  const app = new Hono()
  app.use('*', bodyLimit({ maxSize: LIMIT, onError: (c) => c.text('too large', 413) }))
  app.get('/', (c) => c.text('ok'))
  app.post('/', async (c) => c.text(String((await c.req.text()).length)))
  await new Promise<void>((resolve) => {
    server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, () => resolve())
  })
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`
})
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

/** A request body sent in chunks, so it has no Content-Length. */
function chunked(size: number): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (let sent = 0; sent < size; sent += 256)
        controller.enqueue(new Uint8Array(Math.min(256, size - sent)))
      controller.close()
    },
  })
}

describe('bodyLimit behind @hono/node-server', () => {
  it('lets bodiless requests through', async () => {
    const res = await fetch(url)
    expect(res.status).toBe(200)
    expect(await res.text()).toBe('ok')
  })

  it('accepts a body of declared length up to the limit', async () => {
    const res = await fetch(url, { method: 'POST', body: 'x'.repeat(LIMIT) })
    expect(res.status).toBe(200)
    expect(await res.text()).toBe(String(LIMIT))
  })

  it('refuses a body whose declared length is over the limit', async () => {
    const res = await fetch(url, { method: 'POST', body: 'x'.repeat(LIMIT + 1) })
    expect(res.status).toBe(413)
  })

  it('counts a chunked body as it streams', async () => {
    const small = await fetch(url, { method: 'POST', body: chunked(LIMIT), duplex: 'half' } as RequestInit)
    expect(small.status).toBe(200)
    expect(await small.text()).toBe(String(LIMIT))
    const large = await fetch(url, {
      method: 'POST',
      body: chunked(LIMIT + 1),
      duplex: 'half',
    } as RequestInit)
    expect(large.status).toBe(413)
  })
})

describe('bodyLimit in process (app.request)', () => {
  it('still refuses an oversized body that declares no length', async () => {
    const app = new Hono()
    app.use('*', bodyLimit({ maxSize: LIMIT, onError: (c) => c.text('too large', 413) }))
    app.post('/', (c) => c.text('ok'))
    expect((await app.request('/', { method: 'POST', body: 'x'.repeat(LIMIT + 1) })).status).toBe(413)
    expect((await app.request('/', { method: 'POST', body: 'x'.repeat(LIMIT) })).status).toBe(200)
  })
})
