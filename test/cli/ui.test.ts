import { chmodSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { useServerAndHome } from '../support/cli.js'

/*
 * `rwa ui` (docs/console.md): the console of the server at --url / RWA_URL, opened in a browser
 * ($BROWSER, or the system's opener), or its URL printed when none can be opened. The URL never carries
 * a key.
 */

const shared = useServerAndHome()

describe('rwa ui', () => {
  it('prints the console URL when no browser can be opened (no display), and never the key', async () => {
    const { server, home } = shared
    const result = await home.run(['ui'], { env: { RWA_URL: server.url, RWA_API_KEY: server.adminKey } })
    expect(result.exitCode, result.stderr).toBe(0)
    expect(result.stdout).toBe(`${server.url}/console/ui/`)
    expect(result.stderr).toContain('no browser could be opened')
    expect(result.stdout + result.stderr).not.toContain(server.adminKey)
    // What it names is the console indeed.
    const page = await fetch(result.stdout.trim())
    expect([page.status, page.headers.get('content-type')]).toEqual([200, 'text/html; charset=UTF-8'])
    const json = await home.run(['ui', '--json'], { env: { RWA_URL: server.url } })
    expect(JSON.parse(json.stdout)).toEqual({ url: `${server.url}/console/ui/`, opened: false })
  })

  it('opens it with $BROWSER, giving it the URL alone', async () => {
    const { server, home } = shared
    const seen = join(home.dir, 'browser-args')
    const browser = join(home.dir, 'browser.sh')
    writeFileSync(browser, `#!/bin/sh\nprintf '%s\\n' "$@" > '${seen}'\n`)
    chmodSync(browser, 0o755)
    const result = await home.run(['ui'], {
      env: { RWA_URL: server.url, RWA_API_KEY: server.adminKey, BROWSER: browser },
    })
    expect(result.exitCode, result.stderr).toBe(0)
    expect(readFileSync(seen, 'utf8')).toBe(`${server.url}/console/ui/\n`)
    expect(result.stderr).toContain('opened the rwa console in your browser')
    const quiet = await home.run(['ui', '--no-open', '-q'], {
      env: { RWA_URL: server.url, BROWSER: browser },
    })
    expect(quiet.stdout).toBe(`${server.url}/console/ui/`)
  })

  it('says when nothing answers there (exit 7), or something that is not an rwa console (exit 2)', async () => {
    const { home } = shared
    const down = await home.run(['ui', '--url', 'http://127.0.0.1:9'])
    expect(down.exitCode).toBe(7)
    expect(down.stderr).toContain('cannot reach the rwa server at http://127.0.0.1:9')
    expect(down.stderr).toContain('rwa sandbox --demo')
    // A plain HTTP server that is not rwa.
    const { createServer } = await import('node:http')
    const other = createServer((_req, res) => res.writeHead(404).end('nothing here'))
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve))
    const port = (other.address() as { port: number }).port
    try {
      const wrong = await home.run(['ui', '--url', `http://127.0.0.1:${port}`])
      expect(wrong.exitCode).toBe(2)
      expect(wrong.stderr).toContain('serves no rwa console')
    } finally {
      other.close()
    }
  })

  it('--help says how to use it', async () => {
    const help = await shared.home.run(['ui', '--help'])
    expect(help.stdout).toContain('Usage: rwa ui')
    expect(help.stdout).toContain('--no-open')
  })
})
