import type { SomeHandlers } from '../../../pipeline/handler.js'
import { type RunOperation, runBatch } from './service.js'

/**
 * The batch's handler, given how to run one operation by its handler (the table of contents has every
 * handler; an aggregate does not import it).
 */
export const batchHandlers = (run: RunOperation) =>
  ({
    batch: (ctx, { principal, body, c }) => runBatch(ctx, principal, body, c, run),
  }) satisfies SomeHandlers
