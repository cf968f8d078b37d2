/*
 * GENERATED from the route tables (src/contract/*-routes.ts) by src/cli/spec/generate.ts: do not edit.
 * test/cli/spec.test.ts fails when it is stale; rewrite it with
 *   RWA_WRITE_CLI=1 npx vitest run --config test/vitest.config.ts --project sqlite test/cli/spec.test.ts
 */
import type { CliOperation } from './types.js'

export const OPERATIONS_OPERATIONS: Readonly<Record<string, CliOperation>> = {
  getHealth: { "table":"all","method":"get","public":true,"summary":"Liveness: the process answers (public, not rate limited)","paged":false, "fields": [] },
  getReadiness: { "table":"all","method":"get","public":true,"summary":"Readiness: the instance may take traffic (public, not rate limited)","paged":false, "fields": [] },
  getMetrics: { "table":"all","method":"get","summary":"Prometheus metrics (admin key; not rate limited or metered)","paged":false, "fields": [] },
}
