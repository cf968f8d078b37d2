import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { sourceFiles } from './import-graph.js'

/*
 * A file of server/ or src/cli/ longer than 500 lines holds more than one thing to read at once
 * (docs/architecture.md, "The layers"): split it by what its parts do before it grows further.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const LIMIT = 500

describe('file size', () => {
  it(`keeps every file of server/ and src/cli/ at ${LIMIT} lines or fewer`, () => {
    const files = sourceFiles(ROOT, ['server', 'src/cli'])
    expect(files.length).toBeGreaterThan(200)
    const long = files
      .map((file) => ({ file, lines: readFileSync(join(ROOT, file), 'utf8').split('\n').length - 1 }))
      .filter(({ lines }) => lines > LIMIT)
      .map(({ file, lines }) => `${file}: ${lines} lines`)
    expect(long).toEqual([])
  })
})
