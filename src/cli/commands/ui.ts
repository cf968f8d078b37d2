import { spawn } from 'node:child_process'
import type { Command } from 'commander'
import { withContext } from '../context.js'
import { EXIT, ExitError } from '../exit-error.js'

/*
 * `rwa ui`: the console of the server at --url / RWA_URL (docs/console.md), opened in a browser. The URL
 * it prints and opens is the console's page alone: the API key is never put in it (one signs in on the
 * page), so nothing secret reaches the browser's history or another program's command line.
 */

interface UiOptions {
  /** `--no-open`: print the URL only. */
  open?: boolean
}

export function ui(options: UiOptions, command: Command) {
  return withContext(command, async (ctx) => {
    const { url } = await ctx.resolveConnection()
    const page = `${url.replace(/\/+$/, '')}/console/ui/`
    await checkConsole(url, page)
    const opened = options.open === false ? false : await openInBrowser(page)
    ctx.out.result({ url: page, opened }, () => {
      if (opened) ctx.out.info(`opened the rwa console in your browser; sign in there with an API key`)
      else if (options.open !== false) {
        ctx.out.info('no browser could be opened here; open this URL and sign in with an API key:')
      }
      ctx.out.line(page)
    }, [page])
  })
}

/** The server answers its console page, or an error saying what is there instead (exit 7, or 2). */
async function checkConsole(base: string, page: string): Promise<void> {
  let res: Response
  try {
    res = await fetch(page, { signal: AbortSignal.timeout(10_000) })
  } catch {
    throw new ExitError(
      EXIT.unreachable,
      `cannot reach the rwa server at ${base}`,
      'start one with `rwa sandbox --demo` (or `rwa server start`), or give its URL with --url',
    )
  }
  const html = (res.headers.get('content-type') ?? '').startsWith('text/html')
  await res.arrayBuffer()
  if (res.status === 503 && html) {
    throw new ExitError(
      EXIT.unreachable,
      `the rwa server at ${base} has no console built`,
      'its files are made by `npm run build` (npm install runs it)',
    )
  }
  if (!res.ok || !html) {
    throw new ExitError(
      EXIT.usage,
      `${base} serves no rwa console (${page} answered ${res.status})`,
      'is --url the base URL of an rwa server with the console?',
    )
  }
}

/**
 * Opens `url` with $BROWSER, or the system's opener (open, xdg-open, start); false when there is none to
 * run (no display on Linux, the opener missing or failing), in which case the URL is printed alone.
 */
function openInBrowser(url: string): Promise<boolean> {
  const browser = process.env.BROWSER
  let program: string
  let args: string[]
  if (browser) [program, args] = [browser, [url]]
  else if (process.platform === 'darwin') [program, args] = ['open', [url]]
  else if (process.platform === 'win32') [program, args] = ['cmd', ['/c', 'start', '""', url]]
  else if (process.env.DISPLAY || process.env.WAYLAND_DISPLAY) [program, args] = ['xdg-open', [url]]
  else return Promise.resolve(false)
  return new Promise((resolve) => {
    const child = spawn(program, args, { stdio: 'ignore', detached: true })
    // A browser started from here may keep running: it is its own program, not a child to wait for.
    const settle = setTimeout(() => {
      child.unref()
      resolve(true)
    }, 3000)
    child.once('error', () => {
      clearTimeout(settle)
      resolve(false)
    })
    child.once('exit', (code) => {
      clearTimeout(settle)
      resolve(code === 0)
    })
  })
}
