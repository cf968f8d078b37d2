import { randomBytes } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import { defineConfig, type TestProjectInlineConfiguration, type ViteUserConfig } from 'vitest/config'
import { probeBackends } from './support/probe-backends.js'

/*
 * Two projects: `sqlite` runs every test over SQLite files; `postgres` runs the HTTP and server-process
 * tests again over PostgreSQL and Redis (the harness and the process helper read RWA_TEST_DIALECT),
 * plus the multi-instance tests that only make sense there. A new HTTP test file under test/server or
 * test/integration runs on both without saying so.
 *
 * Without a reachable PostgreSQL and Redis the `postgres` project is left out with one line saying how
 * to enable it; with CI=true that is an error instead, so CI can never pass by skipping it.
 */
const POSTGRES_FILES = [
  'test/server/**/*.test.ts',
  'test/integration/**/*.test.ts',
  'test/shared/**/*.test.ts',
]

export default defineConfig(async (): Promise<ViteUserConfig> => {
  // One id for the run, in this process (the global teardown) and in every test worker.
  const runId = process.env.RWA_TEST_RUN_ID ?? randomBytes(4).toString('hex')
  process.env.RWA_TEST_RUN_ID = runId
  // Vitest evaluates this config more than once per run (once per project that extends it): probe and
  // report once.
  const memo = globalThis as { rwaBackends?: ReturnType<typeof probeBackends> }
  const first = memo.rwaBackends === undefined
  memo.rwaBackends ??= probeBackends()
  const backends = await memo.rwaBackends
  if (!backends.ok && first) {
    const line = `PostgreSQL half skipped: ${backends.problem}. Start PostgreSQL and Redis there, or point RWA_TEST_DATABASE_URL (a database to connect to, e.g. postgres://postgres@127.0.0.1:5432/postgres) and RWA_TEST_REDIS_URL (e.g. redis://127.0.0.1:6379/13) at them.`
    if (process.env.CI === 'true') throw new Error(`CI=true and ${line}`)
    console.log(line)
  }
  const projects: TestProjectInlineConfiguration[] = [
    {
      extends: true,
      test: {
        name: 'sqlite',
        include: ['test/**/*.test.ts'],
        // Tallies the responses the harness checked against /openapi.json (both projects' workers
        // write to the directory it names) and prints the coverage once, at the end of the run.
        globalSetup: ['test/support/global-setup.ts'],
        exclude: ['test/shared/**', '**/node_modules/**'],
        env: { RWA_TEST_DIALECT: 'sqlite', RWA_TEST_RUN_ID: runId },
      },
    },
  ]
  if (backends.ok) {
    projects.push({
      extends: true,
      test: {
        name: 'postgres',
        include: POSTGRES_FILES,
        env: { RWA_TEST_DIALECT: 'postgres', RWA_TEST_RUN_ID: runId },
        setupFiles: ['test/support/postgres-setup-file.ts'],
        globalSetup: ['test/support/postgres-global-setup.ts'],
      },
    })
  }
  return {
    test: {
      root: fileURLToPath(new URL('..', import.meta.url)),
      // End-to-end tests spawn the real server and CLI; give them room on a 2-core machine.
      testTimeout: 30_000,
      hookTimeout: 60_000,
      pool: 'forks',
      // A worker runs file after file with the modules it has loaded (one project's files only: the
      // dialect is fixed per worker). Importing the server afresh for every file took nearly half the
      // run (1,172 s isolated against 623 s, the same machine and load); a file must leave the process as
      // it found it (an environment variable through vi.stubEnv, a harness closed).
      isolate: false,
      // The default reporter, and one that names a test file that stops making progress and bounds the
      // run (test/support/hang-reporter.ts).
      reporters: ['default', './test/support/hang-reporter.ts'],
      // Most of the suite waits on spawned servers, loopback HTTP and databases rather than computing:
      // four files at once keep both cores of the 2-core machine busy (one at a time took 21 minutes,
      // three 15). RWA_TEST_WORKERS overrides it.
      maxWorkers: Number(process.env.RWA_TEST_WORKERS ?? 4),
      projects,
    },
  }
})
