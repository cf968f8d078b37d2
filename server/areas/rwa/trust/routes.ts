import { trustPairSchema } from '../../../../src/contract/rwa.js'
import { validationError } from '../../../platform/errors.js'
import type { SomeHandlers } from '../../../pipeline/handler.js'
import { establishTrust, listTrust, revokeTrust } from './service.js'

/** The trust endpoints (the 22nd governance endpoint is their list). */
export const trustHandlers = {
  listTrust: (ctx, { principal, query }) => listTrust(ctx, principal, query),
  establishTrust: (ctx, { principal, body }) => establishTrust(ctx, principal, body),
  revokeTrust: (ctx, { principal, query, body }) => {
    // The pair comes either whole in the JSON body or in the query string.
    const pair = trustPairSchema.safeParse({ ...query, ...body })
    if (!pair.success) throw validationError(pair.error, 'request')
    return revokeTrust(ctx, principal, pair.data)
  },
} satisfies SomeHandlers
