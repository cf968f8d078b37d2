import type { SomeHandlers } from '../../../pipeline/handler.js'
import { statusListCredential } from './service.js'

/** The public status lists: no API key, like the JWKS. */
export const statusListHandlers = {
  getStatusList: async (ctx, { params, c }) => {
    const { etag, jwt } = await statusListCredential(ctx, params.list_id, c.req.header('if-none-match'))
    const headers = { ETag: etag, 'Cache-Control': 'no-cache' }
    if (jwt === null) return c.body(null, 304, headers)
    return c.body(jwt, 200, { ...headers, 'Content-Type': 'application/vc+jwt' })
  },
} satisfies SomeHandlers
