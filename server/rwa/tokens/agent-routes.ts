import type { OpenAPIHono } from '@hono/zod-openapi'
import {
  freezeRequestExample,
  freezeStateExample,
  tokenActionRequestExample,
  tokenExample,
} from '../../../src/contract/examples.js'
import {
  freezeRequestSchema,
  freezeStateSchema,
  tokenActionRequestSchema,
  tokenDetailSchema,
  tokenParamsSchema,
} from '../../../src/contract/rwa.js'
import type { AppEnv } from '../../auth/principal.js'
import type { AppContext } from '../../context.js'
import { defineRoute, jsonBody, jsonResponse, optionalJsonBody } from '../../http/openapi.js'
import { type Guard, RWA_BASE, rwaTags } from '../routing.js'
import { setFrozen, setPaused } from './agent-service.js'

const pauseRoute = (action: 'pause' | 'unpause', operationId: string, summary: string) =>
  defineRoute({
    method: 'post',
    path: `${RWA_BASE}/tokens/{id}/${action}`,
    operationId,
    access: 'governance',
    tags: rwaTags,
    summary,
    request: {
      params: tokenParamsSchema,
      body: optionalJsonBody(tokenActionRequestSchema, tokenActionRequestExample),
    },
    responses: { 200: jsonResponse(tokenDetailSchema, 'The token', tokenExample) },
    refusals: [404, 409],
  })

const freezeRoute = (action: 'freeze' | 'unfreeze', operationId: string, summary: string) =>
  defineRoute({
    method: 'post',
    path: `${RWA_BASE}/tokens/{id}/${action}`,
    operationId,
    access: 'governance',
    tags: rwaTags,
    summary,
    request: { params: tokenParamsSchema, body: jsonBody(freezeRequestSchema, freezeRequestExample) },
    responses: {
      200: jsonResponse(freezeStateSchema, "The holder's freeze and holdings now", freezeStateExample),
    },
    refusals: [404, 409],
  })

const pause = pauseRoute(
  'pause',
  'pauseToken',
  'Pause a token: every transfer is refused (token_active) until unpaused',
)
const unpause = pauseRoute('unpause', 'unpauseToken', 'Unpause a paused token')
const freeze = freezeRoute(
  'freeze',
  'freezeHolder',
  'Freeze a holder (no amount: can neither send nor receive) or an amount of one holding',
)
const unfreeze = freezeRoute(
  'unfreeze',
  'unfreezeHolder',
  'Unfreeze a holder, or an amount of frozen units of one holding',
)

/** The token agent's operations that move no units. */
export function registerTokenAgentRoutes(app: OpenAPIHono<AppEnv>, ctx: AppContext, guard: Guard): void {
  // A body sent with a non-JSON content type is not parsed: treat it as no body.
  const optional = (body: unknown) => (body as { reason?: string } | undefined) ?? {}
  app.openapi({ ...pause, ...guard }, async (c) =>
    c.json(
      await setPaused(ctx, c.get('principal'), c.req.valid('param').id, true, optional(c.req.valid('json'))),
      200,
    ),
  )
  app.openapi({ ...unpause, ...guard }, async (c) =>
    c.json(
      await setPaused(ctx, c.get('principal'), c.req.valid('param').id, false, optional(c.req.valid('json'))),
      200,
    ),
  )
  app.openapi({ ...freeze, ...guard }, async (c) =>
    c.json(await setFrozen(ctx, c.get('principal'), c.req.valid('param').id, true, c.req.valid('json')), 200),
  )
  app.openapi({ ...unfreeze, ...guard }, async (c) =>
    c.json(
      await setFrozen(ctx, c.get('principal'), c.req.valid('param').id, false, c.req.valid('json')),
      200,
    ),
  )
}
