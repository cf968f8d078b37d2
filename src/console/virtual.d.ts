/** Made by rolldown.config.mjs from the route table: each operation's method, path, access and roles. */
declare module 'virtual:rwa-route-access' {
  const rows: ReadonlyArray<readonly [method: string, path: string, access: string, roles: readonly string[]]>
  export default rows
  /** Every audit action an operation declares, and the console's own (session.created, session.ended). */
  export const AUDIT_ACTIONS: readonly string[]
}
