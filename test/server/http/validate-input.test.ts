import { createRoute, OpenAPIHono, type RouteConfig, z } from '@hono/zod-openapi'
import type { Context } from 'hono'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { errorHandler } from '../../../server/platform/http/error-handler.js'
import { routeOf } from '../../../server/platform/http/openapi.js'
import { bindValidated, refuseInvalidInput } from '../../../server/platform/http/validate-input.js'
import type { OperationSpec } from '../../../src/contract/operation.js'
import { ROUTES } from '../../../src/contract/routes.js'
import { createHarness } from '../../support/harness.js'

/*
 * The operations' input is validated by one synchronous layer (server/platform/http/validate-input.ts)
 * rather than @hono/zod-openapi's async validators: the same answers, byte for byte, for every
 * operation and every kind of input, and no `safeParseAsync`.
 */

const echo = (c: Context) => {
  const req = c.req as unknown as { valid(target: string): unknown }
  return c.json({ param: req.valid('param'), query: req.valid('query'), json: req.valid('json') })
}

/** An app binding every operation the way `bindValidated` does, or as `app.openapi()` does. */
function appBinding(how: 'openapi' | 'validated') {
  const app = new OpenAPIHono({ defaultHook: refuseInvalidInput })
  app.onError(errorHandler(() => {}))
  for (const operation of Object.values(ROUTES) as OperationSpec[]) {
    const route = routeOf(operation) as RouteConfig
    if (how === 'openapi') app.openapi(route, echo as never)
    else
      bindValidated(app, route, operation.body && !operation.body.raw ? operation.body : undefined, [], echo)
  }
  return app
}

/** Requests of every kind an operation can be sent: valid, malformed, mistyped, ill-formed. */
function requestsFor(operation: OperationSpec): Array<[string, RequestInit]> {
  const path = (id: string) => operation.path.replaceAll(/{[^}]+}/g, id)
  const method = operation.method.toUpperCase()
  const json = { 'Content-Type': 'application/json' }
  const example = JSON.stringify(operation.body?.example ?? {})
  const paths = [path('tok_1'), path('%ED%A0%80'), `${path('tok_1')}?limit=2`, `${path('tok_1')}?x=1&x=2`]
  const out: Array<[string, RequestInit]> = paths.map((p) => [p, { method }])
  if (method === 'GET') return out
  const bodies: Array<[string | undefined, Record<string, string>]> = [
    [example, json],
    [example, { 'Content-Type': 'application/json; charset=utf-8' }],
    [example, { 'Content-Type': 'application/vnd.rwa+json' }],
    [example, { 'Content-Type': 'application/json;' }],
    [example, { 'Content-Type': 'text/plain' }],
    [example, { 'Content-Type': 'application/x-www-form-urlencoded' }],
    [example, {}],
    ['', {}],
    [undefined, json],
    ['', json],
    ['{"a": ', json],
    ['[]', json],
    ['null', json],
    ['{}', json],
    ['{"unknown_field": 1}', json],
    ['{"name": "\\ud800"}', json],
    [example.replace(/"[^"]*"(?=\s*[,}])/, '"\\u0000"'), json],
  ]
  // Bytes, not a string: a string body is given `Content-Type: text/plain` by the Request itself.
  const bytes = (body: string | undefined) =>
    body === undefined ? undefined : new TextEncoder().encode(body)
  for (const [body, headers] of bodies) out.push([path('tok_1'), { method, headers, body: bytes(body) }])
  return out
}

describe("an operation's input validated by one layer", () => {
  it('answers every operation as @hono/zod-openapi did, byte for byte', async () => {
    const before = appBinding('openapi')
    const after = appBinding('validated')
    let compared = 0
    for (const operation of Object.values(ROUTES) as OperationSpec[]) {
      for (const [url, init] of requestsFor(operation)) {
        const [a, b] = [await before.request(url, init), await after.request(url, init)]
        const sent = init.body ? new TextDecoder().decode(init.body as Uint8Array) : init.body
        const what = `${operation.operationId} ${init.method} ${url} ${JSON.stringify(init.headers)} ${sent}`
        expect(b.status, what).toBe(a.status)
        expect(b.headers.get('content-type'), what).toBe(a.headers.get('content-type'))
        expect(await b.text(), what).toBe(await a.text())
        compared++
      }
    }
    expect(compared).toBeGreaterThan(500)
  })

  it('documents every operation as @hono/zod-openapi did', () => {
    const document = (app: OpenAPIHono) =>
      JSON.stringify(app.getOpenAPI31Document({ openapi: '3.1.0', info: { title: 't', version: '1' } }))
    expect(document(appBinding('validated'))).toBe(document(appBinding('openapi')))
  })
})

describe('a schema zod cannot parse synchronously', () => {
  it('is parsed asynchronously, its refusal the same 400', async () => {
    const schema = z.strictObject({ name: z.string().refine(async (name) => name !== 'taken') })
    const route = createRoute({
      method: 'post',
      path: '/names',
      request: { body: { content: { 'application/json': { schema } }, required: true } },
      responses: { 200: { description: 'ok' } },
    })
    const app = new OpenAPIHono({ defaultHook: refuseInvalidInput })
    app.onError(errorHandler(() => {}))
    bindValidated(app, route as RouteConfig, { schema, required: true }, [], echo)
    const send = (name: string) =>
      app.request('/names', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ name }),
      })
    const ok = await send('free')
    expect(ok.status).toBe(200)
    expect(await ok.json()).toMatchObject({ json: { name: 'free' } })
    const refused = await send('taken')
    expect(refused.status).toBe(400)
    expect(await refused.json()).toMatchObject({ code: 'invalid_request' })
  })
})

describe('a write route validates its body synchronously', () => {
  afterEach(() => vi.restoreAllMocks())

  it('parses the body with safeParse, never safeParseAsync', async () => {
    const h = await createHarness()
    try {
      const schema = ROUTES.createKey.body.schema
      const sync = vi.spyOn(schema, 'safeParse')
      const async = vi.spyOn(schema, 'safeParseAsync')
      const res = await h.post('/console/billing/keys', { org_id: 'acme', name: 'ci' })
      expect(res.status).toBe(201)
      expect(sync).toHaveBeenCalled()
      expect(async).not.toHaveBeenCalled()
    } finally {
      await h.close()
    }
  })
})
