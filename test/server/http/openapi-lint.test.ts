import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { execa } from 'execa'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createHarness, type Harness } from '../../support/harness.js'

const REDOCLY = fileURLToPath(new URL('../../../node_modules/.bin/redocly', import.meta.url))

let h: Harness
let dir: string
beforeAll(async () => {
  h = await createHarness()
  dir = mkdtempSync(join(tmpdir(), 'rwa-redocly-'))
})
afterAll(async () => {
  await h.close()
  rmSync(dir, { recursive: true, force: true })
})

interface RedoclyProblem {
  ruleId: string
  severity: 'error' | 'warn'
  message: string
  location: Array<{ pointer: string }>
}

/** Lints a document with Redocly's `recommended` ruleset, every rule at its default severity. */
async function lint(document: unknown): Promise<{ errors: number; warnings: number; problems: string[] }> {
  const file = join(dir, 'openapi.json')
  writeFileSync(file, JSON.stringify(document))
  // Run where no redocly.yaml can be picked up; no telemetry, no update check.
  const run = await execa(REDOCLY, ['lint', '--extends=recommended', '--format=json', file], {
    cwd: dir,
    reject: false,
    env: { REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', DO_NOT_TRACK: '1' },
  })
  const report = JSON.parse(run.stdout) as {
    totals: { errors: number; warnings: number }
    problems: RedoclyProblem[]
  }
  return {
    errors: report.totals.errors,
    warnings: report.totals.warnings,
    problems: report.problems.map(
      (p) => `${p.severity} ${p.ruleId} at ${p.location[0]?.pointer}: ${p.message}`,
    ),
  }
}

describe("Redocly's recommended ruleset over the served /openapi.json", () => {
  it('reports no error and no warning (no rule turned off)', async () => {
    const res = await h.get('/openapi.json', { key: null })
    expect(res.status).toBe(200)
    const result = await lint(res.body)
    expect(result.problems).toEqual([])
    expect(result).toMatchObject({ errors: 0, warnings: 0 })
  })

  it('does fail a document missing what this one has (the lint is live, not vacuous)', async () => {
    const res = await h.get('/openapi.json', { key: null })
    const broken = structuredClone(res.body)
    delete broken.servers
    delete broken.components.securitySchemes
    delete broken.paths['/console/billing/pricing'].get.operationId
    const result = await lint(broken)
    expect(result.problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^error no-empty-servers/),
        expect.stringMatching(/^error security-defined/),
        expect.stringMatching(/^warn operation-operationId/),
      ]),
    )
  })
})
