import { readFileSync, writeFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { renderCliSpec } from '../../src/cli/spec/generate.js'

/*
 * src/cli/spec/operations.ts is what the CLI knows of each operation's request, generated from the route
 * table's zod schemas (src/cli/spec/generate.ts) so that declaring the commands loads neither zod nor the
 * contract. It is committed; this test fails when it no longer says what the contract says, and
 * `RWA_WRITE_CLI=1 npx vitest run --config test/vitest.config.ts --project sqlite test/cli/spec.test.ts`
 * rewrites it.
 */

const FILE = new URL('../../src/cli/spec/operations.ts', import.meta.url)

describe('the CLI spec generated from the route table', () => {
  it('is up to date with the contract', () => {
    const expected = renderCliSpec()
    if (process.env.RWA_WRITE_CLI === '1') writeFileSync(FILE, expected)
    expect(
      readFileSync(FILE, 'utf8') === expected,
      'src/cli/spec/operations.ts is stale: rewrite it with RWA_WRITE_CLI=1 npx vitest run --config test/vitest.config.ts --project sqlite test/cli/spec.test.ts',
    ).toBe(true)
  })
})
