import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import SwaggerParser from '@apidevtools/swagger-parser'
import { Validator } from '@seriousme/openapi-schema-validator'
import { execa } from 'execa'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createHarness, type Harness } from '../support/harness.js'

/*
 * The served /openapi.json as the tools people point at it read it: a validator and dereferencer
 * (@apidevtools/swagger-parser), the OpenAPI 3.1 schema (@seriousme/openapi-schema-validator) and a
 * mock server (Stoplight Prism). Each resolves every `$ref` key of the document, examples included:
 * what made the batch reference `$result` (docs/batches.md, "Refs").
 */

const PRISM = fileURLToPath(new URL('../../node_modules/.bin/prism', import.meta.url))

let h: Harness
let dir: string
let served: any
beforeAll(async () => {
  h = await createHarness()
  dir = mkdtempSync(join(tmpdir(), 'rwa-openapi-tools-'))
  const res = await h.get('/openapi.json', { key: null })
  expect(res.status).toBe(200)
  served = res.body
})
afterAll(async () => {
  await h.close()
  rmSync(dir, { recursive: true, force: true })
})

/** The served document with a batch example written the old way, `{ "$ref": "name.field" }`. */
function withOldBatchReference(): any {
  const broken = structuredClone(served)
  const example = broken.paths['/console/rwa/batch'].post.requestBody.content['application/json'].example
  example.operations[1].body.credential_id = { $ref: 'deed.credential_id' }
  return broken
}

/** Every problem swagger-parser finds when it validates, then dereferences, `document`. */
async function swaggerParserProblems(document: unknown): Promise<string[]> {
  const problems: string[] = []
  // Each call on its own copy: swagger-parser rewrites the object it is given.
  for (const step of ['validate', 'dereference'] as const) {
    try {
      await SwaggerParser[step](structuredClone(document) as never)
    } catch (error) {
      problems.push(`${step}: ${(error as Error).message}`)
    }
  }
  return problems
}

/** Starts `prism mock` on `document`: its URL once it listens, or its output when it exits first. */
async function prismMock(document: unknown): Promise<{ url?: string; output: string; stop: () => void }> {
  const file = join(dir, `openapi-${crypto.randomUUID()}.json`)
  writeFileSync(file, JSON.stringify(document))
  const child = execa(PRISM, ['mock', '-h', '127.0.0.1', '-p', '0', file], {
    cwd: dir,
    reject: false,
    buffer: false,
    all: true,
    env: { NO_COLOR: '1', FORCE_COLOR: '0' },
  })
  let output = ''
  const url = await new Promise<string | undefined>((resolve) => {
    const timer = setTimeout(() => resolve(undefined), 80_000)
    child.all?.on('data', (chunk: Buffer) => {
      output += chunk.toString()
      const match = /listening on (http:\/\/[^\s]+)/.exec(output)
      if (match) {
        clearTimeout(timer)
        resolve(match[1])
      }
    })
    child.on('exit', () => {
      clearTimeout(timer)
      resolve(undefined)
    })
  })
  return { url, output, stop: () => child.kill('SIGTERM') }
}

describe('the served /openapi.json in the OpenAPI tools', () => {
  it('validates and dereferences with @apidevtools/swagger-parser', async () => {
    expect(await swaggerParserProblems(served)).toEqual([])
  })

  it('validates against the OpenAPI 3.1 schema of @seriousme/openapi-schema-validator', async () => {
    const validator = new Validator()
    const result = await validator.validate(structuredClone(served))
    expect(validator.version).toBe('3.1')
    expect(result.errors ?? []).toEqual([])
    expect(result.valid).toBe(true)
  })

  // Prism takes seconds to read a document this size (12 s on a busy 2-core machine).
  it('starts a Prism mock server that answers its examples', { timeout: 90_000 }, async () => {
    const prism = await prismMock(served)
    try {
      expect(prism.url, prism.output).toBeDefined()
      const pricing = await fetch(`${prism.url}/console/billing/pricing`)
      expect(pricing.status).toBe(200)
      const example =
        served.paths['/console/billing/pricing'].get.responses['200'].content['application/json']
      expect(await pricing.json()).toEqual(example.example)
    } finally {
      prism.stop()
    }
  })

  it('the tools do fail a document whose batch example holds { "$ref": "name.field" } (the checks are live)', {
    timeout: 90_000,
  }, async () => {
    const broken = withOldBatchReference()
    const problems = await swaggerParserProblems(broken)
    expect(problems).toEqual([
      expect.stringMatching(/^validate: .*deed\.credential_id/),
      expect.stringMatching(/^dereference: .*deed\.credential_id/),
    ])
    const result = await new Validator().validate(structuredClone(broken))
    expect(result.valid).toBe(false)
    expect(JSON.stringify(result.errors)).toMatch(/deed\.credential_id/)
    const prism = await prismMock(broken)
    prism.stop()
    expect(prism.url).toBeUndefined()
    expect(prism.output).toMatch(/deed\.credential_id/)
  })
})
