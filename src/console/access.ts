import routes from 'virtual:rwa-route-access'

/*
 * What the signed-in key may do, from the route table itself (built into the page): a control that
 * would call an operation the key's roles do not allow is not shown (docs/console.md, "Roles").
 */

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete'

/** Whether a key with `roles` may call `method path` (a path template of the table, `{id}` and all). */
export function mayCall(roles: readonly string[], method: Method, path: string): boolean {
  const route = routes.find(([m, p]) => m === method && p === path)
  return route?.[3].some((role) => roles.includes(role)) ?? false
}

/** Whether this server's table has the operation at all (trusted issuers and identities may be absent). */
export const hasOperation = (method: Method, path: string): boolean =>
  routes.some(([m, p]) => m === method && p === path)
