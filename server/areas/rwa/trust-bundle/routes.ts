import type { SomeHandlers } from '../../../pipeline/handler.js'
import { trustBundle } from './service.js'

/** The trust bundle: what an auditor verifies the organization's records against, offline. */
export const trustBundleHandlers = {
  getTrustBundle: (ctx, { principal }) => trustBundle(ctx, principal),
} satisfies SomeHandlers
