import type { RouterRoute } from 'hono/types'
import type { Result } from 'hono/router'
import { RegExpRouter } from 'hono/router/reg-exp-router'
import { TrieRouter } from 'hono/router/trie-router'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { RouteTableRouter } from '../../../server/platform/http/route-table-router.js'
import { createHarness, type Harness } from '../../support/harness.js'

/*
 * The app's router (server/platform/http/route-table-router.ts) must answer every path with exactly
 * the routes hono's TrieRouter answers it with, in the same order, with the same parameters: before
 * it, hono's SmartRouter fell back to the TrieRouter for the whole table, so the TrieRouter's answers
 * are the routing the API has always had. And it must actually be hono's RegExpRouter that answers.
 */

type Handler = [unknown, RouterRoute]

/** A match as the routes it lists, in order, each with its parameters' values. */
function routesOf(
  result: Result<Handler>,
): { method: string; path: string; params: Record<string, string | undefined> }[] {
  const [matches, stash] = result as [[Handler, Record<string, string | number>][], string[] | undefined]
  return matches.map(([[, route], params]) => ({
    method: route.method,
    path: route.path,
    params: Object.fromEntries(
      Object.entries(params).map(([name, at]) => [name, stash ? stash[at as number] : (at as string)]),
    ),
  }))
}

/** A path a route matches: each parameter given a value, a wildcard some segments. */
function concretePath(path: string, value: string): string {
  return path
    .replace(/:\w+(\{[^}]*\})?\??/g, value)
    .replace(/\/\*$/, '/a/b')
    .replace(/\*/g, 'x')
}

/** Every path worth asking: each route's, with values that look like ids and like its siblings. */
function pathsOf(routes: RouterRoute[]): string[] {
  // (Never the empty path: a request's URL always has one, `/` at least.)
  const paths = new Set<string>(['/', '/nowhere', '/console', '/console/', '/docs', '/docs/'])
  for (const { path } of routes) {
    for (const value of ['US', 'trust', 'stream', 'tok_01M8420DESXZV8X28W2ZQWTKA9', 'a%2Fb', '%E2%82%AC']) {
      const concrete = concretePath(path, value)
      paths.add(concrete)
      paths.add(`${concrete}/`)
      paths.add(`${concrete}/extra`)
      paths.add(concrete.slice(0, concrete.lastIndexOf('/')) || '/')
      paths.add(concrete.toUpperCase())
    }
  }
  return [...paths]
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']

let h: Harness
beforeAll(async () => {
  h = await createHarness()
})
afterAll(() => h.close())

describe("the app's router", () => {
  it("is hono's RegExpRouter, with only the static paths it cannot hold answered by the trie", async () => {
    const router = h.app.router as RouteTableRouter<Handler>
    await h.get('/console/billing/pricing', { key: null })
    expect(router).toBeInstanceOf(RouteTableRouter)
    expect(router.name).toBe('RouteTableRouter + RegExpRouter')
    expect(router.activeRouter).toBe('RegExpRouter')
    // The two static paths with a parameter sibling (`/jurisdictions/:id`, `/events/:id`): no more.
    expect([...router.divertedPaths].sort()).toEqual([
      '/console/events/stream',
      '/console/rwa/jurisdictions/trust',
    ])
  })

  it('answers every path with the routes, order and parameters of the TrieRouter over the same table', () => {
    const trie = new TrieRouter<Handler>()
    for (const route of h.app.routes) trie.add(route.method, route.path, [route.handler, route])
    const router = h.app.router as RouteTableRouter<Handler>
    const paths = pathsOf(h.app.routes)
    expect(paths.length).toBeGreaterThan(1000)
    const reached = new Set<string>()
    for (const method of METHODS) {
      for (const path of paths) {
        const expected = routesOf(trie.match(method, path))
        expect(routesOf(router.match(method, path)), `${method} ${path}`).toEqual(expected)
        for (const r of expected) reached.add(`${r.method} ${r.path}`)
      }
    }
    // Every route of the table was reached by some of them, not only the middleware every path has.
    for (const route of h.app.routes) {
      if (route.method !== 'ALL') expect(reached).toContain(`${route.method} ${route.path}`)
    }
  })

  it("sends a request to each route's path to that route's handler", () => {
    const router = h.app.router as RouteTableRouter<Handler>
    for (const route of h.app.routes) {
      if (route.method === 'ALL') continue
      for (const value of ['US', 'tok_01M8420DESXZV8X28W2ZQWTKA9']) {
        const path = concretePath(route.path, value)
        const [matches] = router.match(route.method, path) as [[Handler, unknown][]]
        // The route that answers is the first that is not middleware (server/areas/operations/observe-requests.ts).
        const first = matches.map(([[, r]]) => r).find((r) => r.method !== 'ALL')
        expect(first && `${first.method} ${first.path}`, `${route.method} ${path}`).toBe(
          `${route.method} ${route.path}`,
        )
        // The route's own handler is among those the request runs.
        expect(matches.some(([[handler]]) => handler === route.handler)).toBe(true)
      }
    }
  })

  it('answers the static paths before their parameter siblings, as registered', () => {
    const router = h.app.router as RouteTableRouter<Handler>
    const answering = (method: string, path: string) =>
      routesOf(router.match(method, path)).find((r) => r.method !== 'ALL')
    expect(answering('GET', '/console/rwa/jurisdictions/trust')?.path).toBe(
      '/console/rwa/jurisdictions/trust',
    )
    expect(answering('GET', '/console/rwa/jurisdictions/US')).toEqual({
      method: 'GET',
      path: '/console/rwa/jurisdictions/:id',
      params: { id: 'US' },
    })
    expect(answering('GET', '/console/events/stream')?.path).toBe('/console/events/stream')
    expect(answering('GET', '/console/events/evt_1')?.path).toBe('/console/events/:id')
  })
})

describe('RouteTableRouter', () => {
  const table = (router: { add(m: string, p: string, h: string): void }, routes: [string, string][]) => {
    for (const [method, path] of routes) router.add(method, path, `${method} ${path}`)
  }

  it('falls back to the TrieRouter for a table RegExpRouter cannot hold even without its static paths', () => {
    const routes: [string, string][] = [
      ['GET', '/a/:id'],
      ['GET', '/a/:id{[0-9]+}/b'],
    ]
    expect(() => {
      const regexp = new RegExpRouter<string>()
      table(regexp, routes)
      regexp.match('GET', '/a/1')
    }).toThrow()
    const router = new RouteTableRouter<string>()
    table(router, routes)
    const trie = new TrieRouter<string>()
    table(trie, routes)
    expect(router.match('GET', '/a/1/b')[0]).toEqual(trie.match('GET', '/a/1/b')[0])
    expect(router.activeRouter).toBe('TrieRouter')
  })

  it('refuses routes added once it has answered', () => {
    const router = new RouteTableRouter<string>()
    router.add('GET', '/a', 'a')
    router.match('GET', '/a')
    expect(() => router.add('GET', '/b', 'b')).toThrow(/already built/)
  })
})
