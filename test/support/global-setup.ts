import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/**
 * Collects what the harness checked against /openapi.json across every test file (each process
 * appends its tally to a shared directory) and prints the coverage once the run ends.
 */
export default function setup(): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'rwa-conformance-'))
  process.env.RWA_TEST_CONFORMANCE_DIR = dir
  return function reportConformance() {
    let checked = 0
    let skipped = 0
    const answers = new Set<string>()
    for (const file of readdirSync(dir)) {
      for (const line of readFileSync(join(dir, file), 'utf8').split('\n').filter(Boolean)) {
        const tally = JSON.parse(line) as { checked: number; skipped: number; answers: string[] }
        checked += tally.checked
        skipped += tally.skipped
        for (const answer of tally.answers) answers.add(answer)
      }
    }
    rmSync(dir, { recursive: true, force: true })
    if (checked + skipped === 0) return
    const operations = new Set([...answers].map((a) => a.split(' → ')[0]))
    process.stdout.write(
      `\nOpenAPI conformance: ${checked} responses checked against /openapi.json ` +
        `(${operations.size} operations, ${answers.size} operation × status pairs); ` +
        `${skipped} responses to undocumented paths (e.g. unknown routes) not checked\n`,
    )
  }
}
