#!/usr/bin/env node
// `node bench/audit-log.mjs` (after `npm run build`): the verifiable log's figures alone
// (docs/governance.md, "The verifiable log"), as `npm run bench -- --only log` measures them
// (bench/lib/audit-log.mjs), printed as tab-separated rows. See docs/performance.md, "The verifiable log".
// Exits 1 if a goal is not met.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { runAuditLog } from './lib/audit-log.mjs'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..')

const { values: flags } = parseArgs({
  options: {
    transfers: { type: 'string', default: '400' },
    sizes: { type: 'string', default: '1000,1000000' },
    proofs: { type: 'string', default: '2000' },
    rounds: { type: 'string', default: '3' },
  },
})

const work = mkdtempSync(join(tmpdir(), 'rwa-bench-log-'))
try {
  const rows = await runAuditLog({
    root: ROOT,
    work,
    core: 0,
    transfers: Number(flags.transfers),
    rounds: Number(flags.rounds),
    sizes: flags.sizes.split(',').map(Number),
    proofs: Number(flags.proofs),
    log: (line) => process.stderr.write(`${line}\n`),
  })
  for (const r of rows) {
    const ratio = r.ratio === undefined ? '' : `${r.ratio} vs ${r.baseline} (goal ≤ ${r.goal})`
    console.log([r.title, `${r.value} ${r.unit}`, ratio].join('\t'))
  }
  if (rows.some((r) => r.goal_met === false)) process.exitCode = 1
} finally {
  rmSync(work, { recursive: true, force: true })
}
