import type { OpenAPIHono } from '@hono/zod-openapi'
import type { AppEnv } from '../../pipeline/auth/principal.js'
import type { AppContext } from '../../pipeline/context.js'
import { registerConsolePage } from './page.js'
import { registerConsoleSession } from './session-routes.js'

/** The console (docs/console.md): its session endpoint first, then its page and files. */
export function registerConsole(app: OpenAPIHono<AppEnv>, ctx: AppContext): void {
  registerConsoleSession(app, ctx)
  registerConsolePage(app, ctx)
}
