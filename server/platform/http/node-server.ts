import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { Duplex } from 'node:stream'
import { getRequestListener, RequestError } from '@hono/node-server'
import { ApiError } from '../errors.js'

/*
 * The Node HTTP server in front of the app. Two layers refuse requests before the app sees them, and
 * by default answer a bare 400 with no body: @hono/node-server, when it cannot build the request's URL
 * (an invalid Host header, a backslash in the path, a malformed absolute URL), and Node's HTTP parser
 * (a malformed request line or header, headers over 16 KiB). Both answer problem details here, like
 * every refusal the app itself makes.
 */

const PROBLEM_JSON = 'application/problem+json'

const problemBody = (error: ApiError): string => JSON.stringify(error.toProblem())

/** The response for a request @hono/node-server could not turn into a Request. */
function adapterRefusal(error: unknown, logError: (message: string, error?: unknown) => void): Response {
  if (error instanceof RequestError) {
    const refusal = new ApiError('malformed_body', `Malformed request: ${error.message}`)
    return new Response(problemBody(refusal), { status: 400, headers: { 'Content-Type': PROBLEM_JSON } })
  }
  // The app answers every error itself; reaching here is a bug.
  logError('unexpected error outside the app:', error)
  const internal = new ApiError('internal', 'Internal error; the server logged the details')
  return new Response(problemBody(internal), { status: 500, headers: { 'Content-Type': PROBLEM_JSON } })
}

/** Answers what Node's HTTP parser refused, then closes the connection (as Node does by default). */
function parserRefusal(error: NodeJS.ErrnoException, socket: Duplex & { bytesWritten?: number }): void {
  if (error.code === 'ECONNRESET' || !socket.writable || (socket.bytesWritten ?? 0) > 0) {
    socket.destroy()
    return
  }
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    // The client stopped sending before its request was whole: not a refusal of what it sent.
    socket.end('HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n')
    return
  }
  const detail =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? 'Malformed request: the request headers exceed 16 KiB'
      : 'Malformed request: the request line or a header is not valid HTTP/1.1'
  const body = problemBody(new ApiError('malformed_body', detail))
  socket.end(
    `HTTP/1.1 400 Bad Request\r\nContent-Type: ${PROBLEM_JSON}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  )
}

/** What sees a request before the app: true (or a promise of true) when it has answered it itself. */
export interface Gate {
  handle(req: IncomingMessage, res: ServerResponse): boolean | Promise<boolean>
}

/**
 * What may answer a request the gate let pass without the app: true when it has answered it (a prepared
 * answer at the door, server/areas/operations/answer-at-the-door.ts), false to hand it to the app.
 */
export interface DoorAnswers {
  answer(req: IncomingMessage, res: ServerResponse): boolean
}

/**
 * An HTTP server that serves `fetch` (the app) through @hono/node-server, with problem details for
 * the requests refused before the app. `hostname` is the default host of a request without a Host
 * header, as @hono/node-server's `serve` sets it. `gate()`, when it returns a gate, sees each request
 * first (the per-client bucket, server/platform/limits/public-gate.ts); then `door()`, when it returns
 * answers, may answer it itself; the app answers the rest. Functions, because the server listens
 * (answering 503) before the app context that holds them exists.
 */
export function createHttpServer(
  fetch: (request: Request, env: object) => Response | Promise<Response>,
  options: {
    hostname?: string
    logError: (message: string, error?: unknown) => void
    gate?: () => Gate | undefined
    door?: () => DoorAnswers | undefined
  },
): Server {
  const app = getRequestListener(fetch, {
    hostname: options.hostname,
    errorHandler: (error) => adapterRefusal(error, options.logError),
  })
  const doorOf = options.door
  const listener =
    doorOf === undefined
      ? app
      : (req: IncomingMessage, res: ServerResponse): void => {
          let answered: boolean
          try {
            answered = doorOf()?.answer(req, res) === true
          } catch (error) {
            // A bug; the app answers the request if nothing was written yet (as its error handler would).
            options.logError('unexpected error answering at the door:', error)
            answered = res.headersSent
          }
          if (!answered) void app(req, res)
        }
  const gateOf = options.gate
  const server = createServer(
    gateOf === undefined
      ? listener
      : (req, res) => {
          const answered = gateOf()?.handle(req, res) ?? false
          if (answered === false) return void listener(req, res)
          if (answered === true) return
          answered.then(
            (done) => {
              if (!done) void listener(req, res)
            },
            (error) => {
              // The bucket could not be read: the request is served; the app's own check counts it.
              options.logError('the per-client bucket could not be read:', error)
              void app(req, res)
            },
          )
        },
  )
  server.on('clientError', parserRefusal)
  return server
}
