import { connect } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { problemSchema } from '../../src/contract/errors.js'
import { type ServerProcess, startServerProcess } from '../support/server-process.js'

/*
 * Requests refused before the app sees them, over a real socket to the real server process: by
 * @hono/node-server (it cannot build the request's URL) and by Node's HTTP parser. Before, both
 * answered a bare 400 with no body and no content type; now problem details like every refusal.
 */

let server: ServerProcess
let port: number
beforeAll(async () => {
  server = await startServerProcess()
  port = Number(new URL(server.url).port)
})
afterAll(() => server.cleanup())

interface RawResponse {
  status: number
  headers: Record<string, string>
  body: string
}

/** Sends `request` as raw bytes and reads the whole response, until the server closes. */
function raw(request: string): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1')
    let received = ''
    socket.on('data', (chunk) => {
      received += chunk.toString('utf8')
    })
    socket.on('error', reject)
    socket.on('close', () => {
      const [head = '', ...rest] = received.split('\r\n\r\n')
      const [statusLine = '', ...lines] = head.split('\r\n')
      const headers = Object.fromEntries(
        lines.map((line) => {
          const at = line.indexOf(':')
          return [line.slice(0, at).toLowerCase(), line.slice(at + 1).trim()]
        }),
      )
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: rest.join('\r\n\r\n') })
    })
    // Written, not ended: a half-closed socket makes Node's HTTP server abort a request still being
    // answered (a response that awaits Redis lost the race under load). The server closes after
    // answering: every request here says `Connection: close` or is refused by the parser.
    socket.write(request)
  })
}

const get = (target: string, host = '127.0.0.1', extra = '') =>
  raw(`GET ${target} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n${extra}\r\n`)

function expectProblem(res: RawResponse, detail: RegExp): void {
  expect(res.status).toBe(400)
  expect(res.headers['content-type']).toBe('application/problem+json')
  const problem = problemSchema.parse(JSON.parse(res.body))
  expect(problem).toMatchObject({ status: 400, code: 'invalid_request', title: 'Invalid request' })
  expect(problem.detail).toMatch(detail)
}

describe('refusals before the app, over a real socket', () => {
  it('serves an ordinary request through the same listener', async () => {
    const res = await get('/console/billing/pricing')
    expect(res.status).toBe(200)
    expect(JSON.parse(res.body).free_trial_days).toBe(14)
  })

  it('answers a backslash in the path with problem details', async () => {
    expectProblem(await get('/console\\billing/pricing'), /Backslash in request path/)
    expectProblem(await get('/console/billing/keys\\..\\stats'), /Backslash in request path/)
  })

  it('answers an invalid Host header with problem details', async () => {
    expectProblem(await get('/console/billing/pricing', 'exa%41mple.com'), /Invalid host header/)
    expectProblem(await get('/console/billing/pricing', 'a b'), /Malformed request/)
  })

  it("answers what Node's HTTP parser refuses with problem details", async () => {
    expectProblem(
      await raw('GET /console/billing/pricing HTTP/1.1\r\nHost: 127.0.0.1\r\nNot A Header\r\n\r\n'),
      /not valid HTTP\/1\.1/,
    )
    expectProblem(await get('/', '127.0.0.1', `X-Padding: ${'p'.repeat(20_000)}\r\n`), /exceed 16 KiB/)
  })

  it('still answers an unknown route with 404 problem details, and logs nothing for any of these', async () => {
    const res = await get('/nope')
    expect(res.status).toBe(404)
    expect(res.headers['content-type']).toBe('application/problem+json')
    expect(server.stderr()).not.toMatch(/unexpected error/)
  })
})
