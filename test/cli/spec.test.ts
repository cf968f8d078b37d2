import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { renderCliSpec } from '../../src/cli/spec/generate.js'

/*
 * src/cli/spec/operations*.ts are what the CLI knows of each operation's request, generated from the
 * route table's zod schemas (src/cli/spec/generate.ts) so that declaring the commands loads neither zod
 * nor the contract. They are committed; this test fails when they no longer say what the contract says,
 * and `RWA_WRITE_CLI=1 npx vitest run --config test/vitest.config.ts --project sqlite test/cli/spec.test.ts`
 * rewrites them.
 */

const DIR = new URL('../../src/cli/spec/', import.meta.url)
const REWRITE =
  'RWA_WRITE_CLI=1 npx vitest run --config test/vitest.config.ts --project sqlite test/cli/spec.test.ts'

describe('the CLI spec generated from the route table', () => {
  it('is up to date with the contract', () => {
    const expected = renderCliSpec()
    const generated = () => readdirSync(DIR).filter((name) => /^operations(-.+)?\.ts$/.test(name))
    if (process.env.RWA_WRITE_CLI === '1') {
      for (const name of generated()) if (!(name in expected)) rmSync(new URL(name, DIR))
      for (const [name, text] of Object.entries(expected)) writeFileSync(new URL(name, DIR), text)
    }
    expect(generated().sort(), `src/cli/spec/ holds other files than it should: ${REWRITE}`).toEqual(
      Object.keys(expected).sort(),
    )
    for (const [name, text] of Object.entries(expected))
      expect(
        readFileSync(new URL(name, DIR), 'utf8') === text,
        `src/cli/spec/${name} is stale: ${REWRITE}`,
      ).toBe(true)
  })
})
