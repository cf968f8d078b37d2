import { createServer } from 'node:net'
import { execa, type ResultPromise } from 'execa'

/** A redis-server of the test's own on a free port, so a test can stop and restart it. */
export interface PrivateRedis {
  url: string
  /** SIGKILL: the connection drops as in a crash. */
  kill(): Promise<void>
  /** Starts it again on the same port (empty: it keeps nothing on disk). */
  restart(): Promise<void>
}

/** A loopback port nothing listens on (free when this returns). */
export async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return port
}

export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort()
  let child: ResultPromise | undefined
  const start = async () => {
    child = execa(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      {
        reject: false,
        buffer: false,
      },
    )
    await new Promise<void>((resolve, reject) => {
      let out = ''
      const timer = setTimeout(() => reject(new Error(`redis-server did not start:\n${out}`)), 10_000)
      child!.stdout?.on('data', (chunk: Buffer) => {
        out += chunk.toString()
        if (out.includes('Ready to accept connections')) {
          clearTimeout(timer)
          resolve()
        }
      })
    })
  }
  const kill = async () => {
    if (!child) return
    child.kill('SIGKILL')
    await child
    child = undefined
  }
  await start()
  return { url: `redis://127.0.0.1:${port}`, kill, restart: start }
}
