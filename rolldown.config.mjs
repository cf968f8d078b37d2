// The CLI as a few bundled files (`npm run build`: tsc, then `rolldown -c`). A cold start of `rwa` spent
// most of its time in Node's ES module loader going through zod's 95 files (45 of them locales) and ours,
// one by one; one chunk per command, with zod's code (en locale only) in the chunk of the commands that
// need it, loads in a fraction of that. See docs/performance.md, "CLI cold start".
import { dirname, relative, resolve, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'rolldown'

const root = dirname(fileURLToPath(import.meta.url))
// The server is not bundled: `rwa server start` and `rwa sandbox` import dist/server as tsc built it, so
// the server runs the same files as everywhere else (tests, benchmarks, profiles).
const server = resolve(root, 'dist/server') + sep
const out = resolve(root, 'dist/cli')
// Packages bundled: the ones every client command loads. The rest (@inquirer/prompts, yaml, jose, ...)
// are imported from node_modules by the few commands that use them, as before.
const bundled = ['zod', 'commander', 'fast-string-width', 'fast-string-truncated-width']

const config = {
  input: { main: resolve(root, 'dist/src/cli/main.js') },
  platform: 'node',
  external: (id) =>
    id.startsWith('node:') ||
    (/^[@a-z]/.test(id) && !bundled.some((p) => id === p || id.startsWith(`${p}/`))),
  plugins: [
    {
      name: 'server-stays-out',
      // Imported by its path from the bundle's directory, where every chunk is (dist/cli/x.js -> ../server/...).
      resolveId(source, importer) {
        if (!importer || !source.startsWith('.')) return null
        const path = resolve(dirname(importer), source)
        if (!path.startsWith(server)) return null
        return { id: relative(out, path).split(sep).join('/'), external: true }
      },
    },
  ],
  output: {
    dir: out,
    format: 'esm',
    // The maps name the modules in each chunk (test/cli/startup.test.ts reads them to see what a command loads).
    sourcemap: true,
    sourcemapExcludeSources: true,
    cleanDir: true,
  },
}

export default config

// `node rolldown.config.mjs` (npm run build, and so npm install's prepare): the bundle without the
// rolldown CLI's table of chunk sizes (~95 lines on every install); warnings and errors still print.
if (process.argv[1] === fileURLToPath(import.meta.url)) await build({ ...config, logLevel: 'warn' })
