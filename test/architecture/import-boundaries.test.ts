import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { circlesOf, type Import, importGraph, importsOf, sourceFiles } from './import-graph.js'

/*
 * The import rules of docs/architecture.md, "The layers", checked on every run: no import circle in
 * server/, src/ or bin/; migrations frozen in time (docs/architecture.md, "Migrations are frozen in time"); the write
 * pipeline knowing no aggregate; and server/'s layers, each importing only its own and the ones below.
 * Type-only imports count (a circle of types is still two modules that cannot be read apart), and so
 * do lazy `import()`s.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const GRAPH = importGraph(ROOT, ['server', 'src', 'bin'])
const LOCAL = GRAPH.filter((i) => i.local)

/**
 * server/'s layers, from the top, each a folder: composition is the files at the top of server/ (they
 * wire the rest together), then server/areas/ (the business: governance, billing, approvals, webhooks,
 * events, audit, the console), server/pipeline/ (what every request and write passes through) and
 * server/platform/ (databases, Redis, HTTP plumbing, limits, caches, signing, payments).
 */
const LAYERS: ReadonlyArray<{ layer: string; paths: readonly string[] }> = [
  { layer: 'composition', paths: ['server/'] },
  { layer: 'areas', paths: ['server/areas/'] },
  { layer: 'pipeline', paths: ['server/pipeline/'] },
  { layer: 'platform', paths: ['server/platform/'] },
]

/** Migrations: each file of the folder imports nothing of the repository outside it. */
const MIGRATIONS = 'server/platform/db/migrations/'

/** The write pipeline: a write's transaction, its audit events and the log, its events. */
const WRITE_PIPELINE = [
  'server/pipeline/writes/',
  'server/pipeline/events/outbox.ts',
  'server/pipeline/events/objects.ts',
  'server/pipeline/audit/',
  'server/pipeline/audit-log/',
  'server/platform/audit-log/',
  'server/areas/audit/',
  'server/areas/audit-log/',
]

/** The aggregates: each registers its records with the pipeline (server/aggregates.ts). */
const AGGREGATES = [
  'server/areas/rwa/',
  'server/areas/billing/',
  'server/areas/approvals/',
  'server/areas/webhooks/',
  'server/areas/console/',
]

const under = (file: string, path: string) => (path.endsWith('/') ? file.startsWith(path) : file === path)

/** The layer of a file of server/ (the longest path holding it), or undefined. */
function layerOf(file: string): { layer: string; rank: number } | undefined {
  let best: { layer: string; rank: number; length: number } | undefined
  for (const [rank, { layer, paths }] of LAYERS.entries()) {
    for (const path of paths) {
      if (under(file, path) && (!best || path.length > best.length))
        best = { layer, rank, length: path.length }
    }
  }
  return best && { layer: best.layer, rank: best.rank }
}

const where = (i: Import) => `${i.from}:${i.line} imports ${i.to}${i.kind === 'value' ? '' : ` (${i.kind})`}`

describe('import boundaries (docs/architecture.md, "The layers")', () => {
  it('reads the graph: files and imports of every kind are found', () => {
    // A graph read wrong (no files, or specifiers left unresolved) would let every rule below pass.
    expect(GRAPH.length).toBeGreaterThan(500)
    expect(LOCAL.filter((i) => i.to.endsWith('.js') && i.to.startsWith('server/'))).toEqual([])
    const sample = importsOf(
      ROOT,
      'server/x/a.ts',
      "import type { A } from './b.js'\nimport { type B, c } from '../c.js'\nexport { d } from './d.js'\nconst e = () => import('./e.js')\ntype F = typeof import('./f.js')\n",
    )
    expect(sample.map((i) => [i.to, i.kind, i.line])).toEqual([
      ['server/x/b.js', 'type', 1],
      ['server/c.js', 'value', 2],
      ['server/x/d.js', 'value', 3],
      ['server/x/e.js', 'dynamic', 4],
      ['server/x/f.js', 'type', 5],
    ])
  })

  it('finds circles, long and short, and one loop through each', () => {
    const circles = circlesOf([
      { from: 'a', to: 'b' },
      { from: 'b', to: 'c' },
      { from: 'c', to: 'a' },
      { from: 'c', to: 'd' },
      { from: 'd', to: 'd' },
      { from: 'e', to: 'a' },
    ])
    expect(circles).toEqual([
      { files: ['d'], loop: ['d', 'd'] },
      { files: ['a', 'b', 'c'], loop: ['a', 'b', 'c', 'a'] },
    ])
  })

  it('has no import circle in server/, src/ or bin/', () => {
    const circles = circlesOf(LOCAL)
    expect(circles.map((c) => `${c.files.length} files, e.g. ${c.loop.join(' -> ')}`)).toEqual([])
  })

  it('keeps migrations frozen in time: a migration imports nothing of the live code', () => {
    const outside = LOCAL.filter((i) => i.from.startsWith(MIGRATIONS) && !i.to.startsWith(MIGRATIONS))
    expect(outside.map(where)).toEqual([])
  })

  it('keeps the aggregates out of the write pipeline: it knows them by registration', () => {
    const known = LOCAL.filter(
      (i) => WRITE_PIPELINE.some((p) => under(i.from, p)) && AGGREGATES.some((p) => under(i.to, p)),
    )
    expect(known.map(where)).toEqual([])
  })

  it('lays server/ out by layer: nothing but the layer folders and the composition files at its top', () => {
    const top = new Set(sourceFiles(ROOT, ['server']).map((f) => f.split('/')[1] ?? ''))
    const folders = [...top].filter((name) => !name.endsWith('.ts')).sort()
    expect(folders).toEqual(['areas', 'pipeline', 'platform'])
  })

  it('imports within server/ point down its layers (composition, areas, pipeline, platform)', () => {
    const upward = LOCAL.filter((i) => {
      const from = layerOf(i.from)
      const to = layerOf(i.to)
      return from !== undefined && to !== undefined && to.rank < from.rank
    }).map((i) => `${where(i)}: ${layerOf(i.from)?.layer} above ${layerOf(i.to)?.layer}`)
    expect(upward).toEqual([])
  })

  it('keeps the code shared with the CLI free of server code (src/ but the CLI)', () => {
    // The CLI reaches the server for `rwa server start` and the webhook helpers of `rwa events`.
    const reaching = LOCAL.filter(
      (i) => i.from.startsWith('src/') && !i.from.startsWith('src/cli/') && i.to.startsWith('server/'),
    )
    expect(reaching.map(where)).toEqual([])
  })
})
