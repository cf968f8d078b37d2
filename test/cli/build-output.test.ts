import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { execa } from 'execa'
import { afterAll, describe, expect, it } from 'vitest'

/*
 * `npm install` runs `prepare`, which is `npm run build`: what the build prints, every install prints.
 * The bundling step of the build script is run here as the script says, in a copy of the compiled
 * tree, with the sources the console page is bundled from (the real dist/ is what the other tests run).
 */

const ROOT = resolve(import.meta.dirname, '../..')
const dir = mkdtempSync(join(tmpdir(), 'rwa-build-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('npm run build', () => {
  it('bundles the CLI printing nothing but warnings and errors (no table of chunk sizes)', async () => {
    const script: string = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts.build
    const steps = script.split('&&').map((step) => step.trim())
    expect(steps[0]).toMatch(/^tsc /)
    const bundle = steps.slice(1).join(' && ')
    cpSync(join(ROOT, 'rolldown.config.mjs'), join(dir, 'rolldown.config.mjs'))
    cpSync(join(ROOT, 'dist/src'), join(dir, 'dist/src'), { recursive: true })
    cpSync(join(ROOT, 'dist/server'), join(dir, 'dist/server'), { recursive: true })
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'))
    // The console page is bundled from the TypeScript sources (and the stylesheet) directly.
    symlinkSync(join(ROOT, 'src'), join(dir, 'src'))
    cpSync(join(ROOT, 'tsconfig.json'), join(dir, 'tsconfig.json'))
    const run = await execa('sh', ['-c', bundle], {
      cwd: dir,
      // As npm runs it: not under the test runner's NODE_ENV=test, which quiets the rolldown CLI.
      extendEnv: false,
      env: { PATH: `${join(ROOT, 'node_modules/.bin')}:${process.env.PATH}`, HOME: dir },
      all: true,
      reject: false,
    })
    expect(run.exitCode, run.all).toBe(0)
    expect(run.all).toBe('')
    expect(existsSync(join(dir, 'dist/cli/main.js'))).toBe(true)
    expect(existsSync(join(dir, 'dist/console/manifest.json'))).toBe(true)
  })
})
