/*
 * What a request to a known path with another method is told (README.md, "Errors"): 405 with `Allow`, not the
 * 404 of a path no operation has. The paths are the app's own routes (Hono's `app.routes`), so the
 * declared operations, /openapi.json and /docs all count, and nothing is listed twice.
 */

interface RouteEntry {
  method: string
  path: string
}

/** Hono path pattern → a regular expression of its concrete paths (`:param` one segment, `*` any). */
function patternOf(path: string): RegExp {
  const segments = path.split('/').map((segment) => {
    if (segment.startsWith(':')) return '[^/]+'
    if (segment === '*') return '.*'
    return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  })
  return new RegExp(`^${segments.join('/')}/?$`)
}

/**
 * The methods some route answers `path` with, in a stable order (HEAD wherever GET is), or none when
 * no route has that path. Middleware (method `ALL`) is not a route.
 */
export function allowedMethodsOf(routes: readonly RouteEntry[]): (path: string) => string[] {
  let compiled: Array<{ method: string; pattern: RegExp }> | undefined
  return (path) => {
    compiled ??= routes
      .filter((r) => r.method !== 'ALL' && r.path !== '*' && r.path !== '/*')
      .map((r) => ({ method: r.method.toUpperCase(), pattern: patternOf(r.path) }))
    const methods = new Set<string>()
    for (const route of compiled) if (route.pattern.test(path)) methods.add(route.method)
    if (methods.has('GET')) methods.add('HEAD')
    const order = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']
    return [...methods].sort((a, b) => order.indexOf(a) - order.indexOf(b))
  }
}
