/*
 * GENERATED from the route tables (src/contract/*-routes.ts) by src/cli/spec/generate.ts: do not edit.
 * test/cli/spec.test.ts fails when it is stale; rewrite it with
 *   RWA_WRITE_CLI=1 npx vitest run --config test/vitest.config.ts --project sqlite test/cli/spec.test.ts
 */
import type { CliOperation } from './types.js'
import { BILLING_OPERATIONS } from './operations-billing.js'
import { GOVERNANCE_OPERATIONS } from './operations-governance.js'
import { AUDIT_OPERATIONS } from './operations-audit.js'
import { EVENTS_OPERATIONS } from './operations-events.js'
import { OPERATIONS_OPERATIONS } from './operations-operations.js'

/** Every operation of the route table, by operationId. */
export const OPERATIONS: Readonly<Record<string, CliOperation>> = {
  ...BILLING_OPERATIONS,
  ...GOVERNANCE_OPERATIONS,
  ...AUDIT_OPERATIONS,
  ...EVENTS_OPERATIONS,
  ...OPERATIONS_OPERATIONS,
}
