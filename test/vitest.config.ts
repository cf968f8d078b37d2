import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    root: fileURLToPath(new URL('..', import.meta.url)),
    include: ['test/**/*.test.ts'],
    // Tallies the responses the harness checked against /openapi.json and prints the coverage.
    globalSetup: ['test/support/global-setup.ts'],
    // End-to-end tests spawn the real server and CLI; give them room on a 2-core machine.
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
})
