import type { SomeHandlers } from '../../pipeline/handler.js'
import { rotateSigningKey } from './rotation.js'

/** The service's signing keys: rotating the proof key (admin key). */
export const signingKeyHandlers = {
  rotateSigningKey: (ctx, { body }) => rotateSigningKey(ctx, body),
} satisfies SomeHandlers
