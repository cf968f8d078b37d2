import { afterEach, describe, expect, it } from 'vitest'
import { type ServerProcess, startServerProcess } from '../support/server-process.js'

let server: ServerProcess | undefined
let cleanups: Array<() => Promise<void>> = []
const onCleanup = (cleanup: () => Promise<void>) => cleanups.push(cleanup)
afterEach(async () => {
  await server?.cleanup()
  server = undefined
  for (const cleanup of cleanups) await cleanup()
  cleanups = []
})

const call = (url: string, path: string, init: RequestInit & { key?: string } = {}) =>
  fetch(new URL(path, url), {
    ...init,
    headers: { 'content-type': 'application/json', ...(init.key ? { 'x-api-key': init.key } : {}) },
  })

describe('rwa server start (a real process)', () => {
  it('prints the admin key once, serves, stops on SIGTERM and keeps its data across a restart', async () => {
    server = await startServerProcess()
    // stderr is not a terminal here, so these are JSON log lines carrying the same text.
    expect(server.stderr()).toMatch(/"admin API key \(shown once\): rwa_live_[A-Za-z0-9_-]{43}"/)
    expect(server.stderr()).toMatch(/"listening on http:\/\/127\.0\.0\.1:\d+"/)
    const { adminKey, storage } = server

    const created = await call(server.url, '/console/billing/keys', {
      method: 'POST',
      key: adminKey,
      body: JSON.stringify({ org_id: 'acme', name: 'ci', start_trial: true }),
    })
    expect(created.status).toBe(201)
    const key = (await created.json()) as { api_key: string; key_id: string }
    // The member key works, so its use is metered; a clean stop must flush that to the database.
    expect((await call(server.url, '/console/billing/usage/acme', { key: key.api_key })).status).toBe(200)

    expect(await server.stop()).toBe(0)
    // Nothing the server wrote names the member key (the admin key is printed once, by design).
    expect(server.stderr()).not.toContain(key.api_key)

    const first = server
    server = await startServerProcess({ storage })
    onCleanup(() => first.cleanup())
    expect(server.stderr()).not.toMatch(/admin API key/)
    const listed = await call(server.url, '/console/billing/keys?org_id=acme', { key: adminKey })
    expect(listed.status).toBe(200)
    const body = (await listed.json()) as { keys: Array<{ key_id: string; last_used_at: string | null }> }
    expect(body.keys.map((k) => k.key_id)).toEqual([key.key_id])
    expect(body.keys[0]!.last_used_at).not.toBeNull()
    const usage = (await (
      await call(server.url, '/console/billing/usage/acme?days=1', { key: key.api_key })
    ).json()) as {
      totals: { total_requests: number }
    }
    // The request before the restart plus this one.
    expect(usage.totals.total_requests).toBe(2)
  })

  it('refuses a body over 1 MiB with 413 problem details, declared or chunked, and creates nothing', async () => {
    server = await startServerProcess()
    const big = JSON.stringify({ org_id: 'acme', name: 'x', padding: 'p'.repeat(1024 * 1024) })
    const declared = await call(server.url, '/console/billing/keys', {
      method: 'POST',
      key: server.adminKey,
      body: big,
    })
    expect(declared.status).toBe(413)
    expect(declared.headers.get('content-type')).toBe('application/problem+json')
    expect(((await declared.json()) as { code: string }).code).toBe('payload_too_large')

    const chunks = new ReadableStream({
      start(controller) {
        for (let i = 0; i < 20; i++) controller.enqueue(new TextEncoder().encode('x'.repeat(64 * 1024)))
        controller.close()
      },
    })
    const chunked = await call(server.url, '/console/billing/keys', {
      method: 'POST',
      key: server.adminKey,
      body: chunks,
      duplex: 'half',
    } as RequestInit & { key: string })
    expect(chunked.status).toBe(413)

    const keys = await call(server.url, '/console/billing/keys?org_id=acme', { key: server.adminKey })
    expect(await keys.json()).toEqual({ keys: [], total: 0 })
  })

  it('uses RWA_ADMIN_KEY on a new database and does not print it', async () => {
    const preset = `rwa_live_${'A'.repeat(43)}`
    server = await startServerProcess({ adminKey: preset })
    expect(server.stderr()).not.toContain(preset)
    const stats = await call(server.url, '/console/billing/stats', { key: preset })
    expect(stats.status).toBe(200)
  })

  it('refuses a malformed RWA_ADMIN_KEY at start, naming the variable', async () => {
    await expect(startServerProcess({ adminKey: 'not-a-key' })).rejects.toThrow(/RWA_ADMIN_KEY/)
  })
})
