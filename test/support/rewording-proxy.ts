import { createServer, request, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

/**
 * A reverse proxy in front of a real server that rewrites the `detail` of every problem document it
 * passes on (`reword(problem)`), and nothing else: a server whose messages were reworded. The CLI
 * must print the new sentence and otherwise exactly what it printed before.
 */
export interface RewordingProxy {
  url: string
  close(): Promise<void>
}

export async function rewordingProxy(
  target: string,
  reword: (problem: Record<string, unknown>) => string,
): Promise<RewordingProxy> {
  const upstream = new URL(target)
  const server: Server = createServer((incoming, answer) => {
    const chunks: Buffer[] = []
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk))
    incoming.on('end', () => {
      const forward = request(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: incoming.method,
          path: incoming.url,
          headers: { ...incoming.headers, host: upstream.host },
        },
        (response) => {
          const body: Buffer[] = []
          response.on('data', (chunk: Buffer) => body.push(chunk))
          response.on('end', () => {
            let text = Buffer.concat(body)
            const headers = { ...response.headers }
            if (String(headers['content-type']).startsWith('application/problem+json')) {
              const problem = JSON.parse(text.toString('utf8')) as Record<string, unknown>
              problem.detail = reword(problem)
              text = Buffer.from(JSON.stringify(problem))
            }
            delete headers['transfer-encoding']
            headers['content-length'] = String(text.length)
            answer.writeHead(response.statusCode ?? 502, headers)
            answer.end(text)
          })
        },
      )
      forward.on('error', (error) => {
        answer.writeHead(502).end(String(error))
      })
      forward.end(Buffer.concat(chunks))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections()
        server.close((error) => (error ? reject(error) : resolve()))
      }),
  }
}
