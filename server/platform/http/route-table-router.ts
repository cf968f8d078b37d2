import { MESSAGE_MATCHER_IS_ALREADY_BUILT, type Result, type Router, UnsupportedPathError } from 'hono/router'
import { RegExpRouter } from 'hono/router/reg-exp-router'
import { TrieRouter } from 'hono/router/trie-router'

type Route<T> = [method: string, path: string, handler: T]

/** Hono's RegExpRouter's own test of a path without parameters or wildcards. */
const isStaticPath = (path: string): boolean => !/\*|\/:/.test(path)

/**
 * The app's router: hono's `RegExpRouter` (one regular expression per method, a lookup for paths
 * without parameters), which answers every path the `TrieRouter` answers, with the same routes in the
 * same order, except where a path without parameters has a parameter sibling at the same position
 * (`/console/rwa/jurisdictions/trust` and `/console/rwa/jurisdictions/:id`): `RegExpRouter` refuses
 * such a table (`UnsupportedPathError`, whichever is registered first), and hono's default
 * `SmartRouter` then searches the whole table with the `TrieRouter` for every request
 * (docs/performance.md, "Third pass: the router and the metrics").
 *
 * Here only those few static paths are left out of the `RegExpRouter`, and a request for exactly one
 * of them is answered by a `TrieRouter` holding the whole table, as every request was before: its
 * answer there lists every route it matches in registration order (the static route and its
 * parameter sibling), so the route registered first answers, as before. No other path can match a
 * route without parameters, so every other answer is the `RegExpRouter`'s over the same table. A table
 * that does not fit even so (two parameter routes in conflict) is answered by the `TrieRouter` alone.
 */
export class RouteTableRouter<T> implements Router<T> {
  name = 'RouteTableRouter'
  #routes: Route<T>[] | undefined = []
  #active: 'RegExpRouter' | 'TrieRouter' | undefined
  #diverted: ReadonlySet<string> = new Set()

  add(method: string, path: string, handler: T): void {
    if (!this.#routes) throw new Error(MESSAGE_MATCHER_IS_ALREADY_BUILT)
    this.#routes.push([method, path, handler])
  }

  /** The first match builds both routers from the table; later ones go straight to them. */
  match(method: string, path: string): Result<T> {
    this.#build()
    return this.match(method, path)
  }

  /** Which router answers the paths of the table: `RegExpRouter` unless the table does not fit it. */
  get activeRouter(): 'RegExpRouter' | 'TrieRouter' {
    if (!this.#active) throw new Error('No active router has been determined yet.')
    return this.#active
  }

  /** The static paths answered by the `TrieRouter`, because `RegExpRouter` cannot hold them. */
  get divertedPaths(): ReadonlySet<string> {
    return this.#diverted
  }

  #build(): void {
    const routes = this.#routes
    if (!routes) throw new Error('Fatal error')
    this.#routes = undefined
    const trie = new TrieRouter<T>()
    for (const route of routes) trie.add(...route)
    const regexp = regExpRouterOf(routes)
    if (!regexp) {
      this.#active = 'TrieRouter'
      this.match = (method, path) => trie.match(method, path)
    } else {
      const diverted = regexp.diverted
      const router = regexp.router
      this.#active = 'RegExpRouter'
      this.#diverted = diverted
      this.match =
        diverted.size === 0
          ? (method, path) => router.match(method, path)
          : (method, path) => (diverted.has(path) ? trie.match(method, path) : router.match(method, path))
    }
    this.name = `RouteTableRouter + ${this.#active}`
  }
}

/**
 * A `RegExpRouter` of the table without the static paths it cannot hold, built (its first match
 * compiles it), or undefined when the table does not fit it even so.
 */
function regExpRouterOf<T>(
  routes: Route<T>[],
): { router: RegExpRouter<T>; diverted: Set<string> } | undefined {
  const diverted = new Set<string>()
  // In registration order: the order of a match's handlers is the order they were added.
  const build = (withStatic: boolean): RegExpRouter<T> => {
    const router = new RegExpRouter<T>()
    for (const route of routes) {
      if (isStaticPath(route[1]) ? withStatic && !diverted.has(route[1]) : true) router.add(...route)
    }
    return router
  }
  try {
    // The routes with parameters, then each static path in turn: one the router refuses is diverted,
    // and the probe built again (a refused `add` may have left part of the route in it).
    let probe = build(false)
    const added: Route<T>[] = []
    for (const route of routes) {
      if (!isStaticPath(route[1]) || diverted.has(route[1])) continue
      try {
        probe.add(...route)
        added.push(route)
      } catch (error) {
        if (!(error instanceof UnsupportedPathError)) throw error
        diverted.add(route[1])
        probe = build(false)
        for (const earlier of added) if (!diverted.has(earlier[1])) probe.add(...earlier)
      }
    }
    const router = build(true)
    router.match('GET', '/')
    return { router, diverted }
  } catch (error) {
    if (error instanceof UnsupportedPathError) return undefined
    throw error
  }
}
