// The CLI as a few bundled files (`npm run build`: tsc, then `rolldown -c`). A cold start of `rwa` spent
// most of its time in Node's ES module loader going through zod's 95 files (45 of them locales) and ours,
// one by one; one chunk per command, with zod's code (en locale only) in the chunk of the commands that
// need it, loads in a fraction of that. See docs/performance.md, "CLI cold start".
import { readFileSync } from 'node:fs'
import { dirname, relative, resolve, sep } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { build } from 'rolldown'

const root = dirname(fileURLToPath(import.meta.url))
// The server is not bundled: `rwa server start` and `rwa sandbox` import dist/server as tsc built it, so
// the server runs the same files as everywhere else (tests, benchmarks, profiles).
const server = resolve(root, 'dist/server') + sep
const out = resolve(root, 'dist/cli')
// Packages bundled: the ones every client command loads. The rest (@inquirer/prompts, yaml, jose, ...)
// are imported from node_modules by the few commands that use them, as before.
const bundled = ['zod', 'commander', 'fast-string-width', 'fast-string-truncated-width']

const cli = {
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

// The console's page (docs/console.md, "The stack"): its TSX compiled with Preact for the browser into one
// minified script and one stylesheet, named by their content's hash (served with a year's cache), and a
// manifest naming them for the server. Nothing is fetched at run time.
const consoleOut = resolve(root, 'dist/console')
const ROUTE_TABLE = 'virtual:rwa-route-access'

/** `virtual:rwa-route-access`: each operation's method, path and the roles that may call it, from the table. */
function routeAccess() {
  return {
    name: 'rwa-route-access',
    resolveId: (id) => (id === ROUTE_TABLE ? `\0${ROUTE_TABLE}` : null),
    async load(id) {
      if (id !== `\0${ROUTE_TABLE}`) return null
      // Built by tsc just before (`npm run build`): the page knows what a key may do from the one table.
      const { ROUTES } = await import(pathToFileURL(resolve(root, 'dist/src/contract/routes.js')).href)
      const { rolesOf } = await import(pathToFileURL(resolve(root, 'dist/src/contract/operation.js')).href)
      const rows = Object.values(ROUTES).map((op) => [op.method, op.path, op.access, rolesOf(op)])
      // The audit actions the operations declare, and the console's own, for the audit page's filter.
      const actions = [
        ...new Set([
          ...Object.values(ROUTES).flatMap((op) => op.audit ?? []),
          'session.created',
          'session.ended',
        ]),
      ]
      return `export default ${JSON.stringify(rows)}\nexport const AUDIT_ACTIONS = ${JSON.stringify(actions.sort())}`
    },
  }
}

/** The stylesheet as a hashed asset, and `manifest.json` naming the script and the stylesheet. */
function consoleFiles() {
  let style
  return {
    name: 'rwa-console-files',
    buildStart() {
      const css = resolve(root, 'src/console/console.css')
      this.addWatchFile(css)
      style = this.emitFile({ type: 'asset', name: 'console.css', source: readFileSync(css) })
    },
    generateBundle(_options, bundle) {
      const entry = Object.values(bundle).find((file) => file.type === 'chunk' && file.isEntry)
      const manifest = { script: entry.fileName, style: this.getFileName(style) }
      this.emitFile({
        type: 'asset',
        fileName: 'manifest.json',
        source: `${JSON.stringify(manifest, null, 2)}\n`,
      })
    },
  }
}

const page = {
  input: { console: resolve(root, 'src/console/main.tsx') },
  platform: 'browser',
  tsconfig: resolve(root, 'src/console/tsconfig.json'),
  // The page imports the repository's TypeScript as the server does (`./x.js` naming `./x.ts`).
  resolve: { extensionAlias: { '.js': ['.ts', '.tsx', '.js'] } },
  plugins: [routeAccess(), consoleFiles()],
  output: {
    dir: consoleOut,
    format: 'esm',
    entryFileNames: '[name]-[hash].js',
    chunkFileNames: '[name]-[hash].js',
    assetFileNames: '[name]-[hash][extname]',
    minify: true,
    cleanDir: true,
  },
}

export default [cli, page]

// `node rolldown.config.mjs` (npm run build, and so npm install's prepare): the bundles without the
// rolldown CLI's table of chunk sizes (~95 lines on every install); warnings and errors still print.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const config of [cli, page]) await build({ ...config, logLevel: 'warn' })
}
