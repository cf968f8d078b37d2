import { type OpenAPIHono, z } from '@hono/zod-openapi'
import { statusListParamsSchema } from '../../../src/contract/rwa.js'
import type { AppEnv } from '../../auth/principal.js'
import type { AppContext } from '../../context.js'
import { defineRoute } from '../../http/openapi.js'
import { RWA_BASE, rwaTags } from '../routing.js'
import { statusListCredential } from './service.js'

const get = defineRoute({
  method: 'get',
  path: `${RWA_BASE}/status/{list_id}`,
  operationId: 'getStatusList',
  access: 'public',
  tags: rwaTags,
  summary: 'A W3C Bitstring Status List credential (public): revocation any verifier can check',
  request: { params: statusListParamsSchema },
  responses: {
    200: {
      description:
        'The status list credential as a raw VC-JWT (BitstringStatusListCredential) signed by the issuing jurisdiction; ETag changes with each revocation',
      content: {
        'application/vc+jwt': { schema: z.string(), example: 'eyJhbGciOiJFZERTQSIsInR5cCI6InZjK2p3dCJ9.…' },
      },
    },
    304: { description: 'Not modified since the ETag given in If-None-Match' },
  },
  refusals: [404],
})

/** The public status lists: no API key, like the JWKS. */
export function registerStatusListRoutes(app: OpenAPIHono<AppEnv>, ctx: AppContext): void {
  app.openapi(get, async (c) => {
    const { etag, jwt } = await statusListCredential(
      ctx,
      c.req.valid('param').list_id,
      c.req.header('if-none-match'),
    )
    const headers = { ETag: etag, 'Cache-Control': 'no-cache' }
    if (jwt === null) return c.body(null, 304, headers)
    return c.body(jwt, 200, { ...headers, 'Content-Type': 'application/vc+jwt' })
  })
}
