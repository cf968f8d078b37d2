import { request as httpRequest, type IncomingMessage } from 'node:http'
import { problemSchema } from '../contract/errors.js'
import { type Event, eventSchema } from '../contract/events.js'
import { eventStreamRoutes } from '../contract/events-routes.js'
import { ApiProblemError, ConnectionError, UnexpectedResponseError } from './errors.js'

/*
 * The reader of `GET /console/events/stream` (server-sent events: docs/webhooks.md, "The event stream"),
 * which the generic client call cannot be: that one reads an answer whole, and this one does not end.
 * node:http, as the client's transport is (src/client/http.ts).
 */

/** Where and what to stream. */
export interface EventStreamOptions {
  baseUrl: string
  apiKey: string
  /** Comma-separated selectors (types, `<resource>.*`); absent: every type. */
  events?: string
  /** Resume after this event (sent as `Last-Event-ID`). */
  lastEventId?: string
  /** Ends the stream (the promise resolves). */
  signal?: AbortSignal
  /** Told the stream is open, with where it starts: the id to resume after (its `Last-Event-ID`). */
  onOpen?: (position: string | undefined) => void
  /**
   * Nothing received for this long (not even the server's keep-alive, every 15 s) means the connection
   * is dead: the stream ends so the caller reconnects. Default 45 s.
   */
  idleTimeoutMs?: number
}

/**
 * Opens the stream once and calls `onEvent` for each event, in order (waiting for each); resolves when
 * the stream ends (the server closed it, the connection broke or went quiet, or `signal` aborted), so
 * the caller reconnects with the last id it had. A refusal (401, 403, 400...) throws ApiProblemError;
 * a server that cannot be reached throws ConnectionError.
 */
export async function readEventStream(
  options: EventStreamOptions,
  onEvent: (event: Event) => Promise<void> | void,
): Promise<void> {
  const url = new URL(`${options.baseUrl.replace(/\/+$/, '')}${eventStreamRoutes.streamEvents.path}`)
  if (options.events !== undefined) url.searchParams.set('events', options.events)
  const headers: Record<string, string> = { accept: 'text/event-stream', 'x-api-key': options.apiKey }
  if (options.lastEventId !== undefined) headers['last-event-id'] = options.lastEventId
  const request = url.protocol === 'https:' ? (await import('node:https')).request : httpRequest
  const idleMs = options.idleTimeoutMs ?? 45_000

  const response = await new Promise<IncomingMessage>((resolve, reject) => {
    const req = request(url, { method: 'GET', headers, signal: options.signal }, resolve)
    req.setTimeout(idleMs, () => req.destroy(Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' })))
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (error.name === 'AbortError') reject(error)
      else reject(new ConnectionError(options.baseUrl, error.code ?? error.message, { cause: error }))
    })
    req.end()
  }).catch((error: Error) => {
    if (error.name === 'AbortError') return undefined
    throw error
  })
  if (!response) return

  const requestId = response.headers['x-request-id']
  if (response.statusCode !== 200 || !response.headers['content-type']?.startsWith('text/event-stream')) {
    const text = await new Promise<string>((resolve) => {
      const chunks: Buffer[] = []
      response.on('data', (chunk: Buffer) => chunks.push(chunk))
      response.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
      response.on('error', () => resolve(Buffer.concat(chunks).toString('utf8')))
    })
    let json: unknown
    try {
      json = JSON.parse(text)
    } catch {}
    const problem = problemSchema.safeParse(json)
    if (problem.success) {
      const retryAfter = response.headers['retry-after']
      throw new ApiProblemError(problem.data, typeof retryAfter === 'string' ? Number(retryAfter) : undefined)
    }
    throw new UnexpectedResponseError(
      response.statusCode ?? 0,
      `GET /console/events/stream: ${options.baseUrl} answered ${response.statusCode} without an event stream`,
      text,
      typeof requestId === 'string' ? requestId : undefined,
    )
  }

  const parser = new EventStreamParser()
  let opened = false
  response.setEncoding('utf8')
  response.socket?.setTimeout(idleMs, () => response.destroy())
  try {
    for await (const chunk of response as AsyncIterable<string>) {
      for (const message of parser.push(chunk)) {
        if (message.event === undefined && message.data === '') {
          // The opening frame: `retry`, the stream's position as its `id`, and no event.
          if (!opened) options.onOpen?.(message.id)
          opened = true
          continue
        }
        if (message.event === undefined || message.data === '') continue
        const event = eventSchema.safeParse(JSON.parse(message.data))
        if (!event.success) {
          throw new UnexpectedResponseError(
            200,
            'the event stream sent an event this client does not understand',
            message.data,
          )
        }
        await onEvent(event.data)
      }
    }
  } catch (error) {
    // The connection broke or was aborted: the caller reconnects (or stops).
    if (error instanceof UnexpectedResponseError) throw error
  }
}

/** One dispatched server-sent event: its fields as the stream gave them. */
export interface StreamMessage {
  id?: string
  event?: string
  data: string
}

/** The text/event-stream format (WHATWG HTML, "server-sent events"), fed chunk by chunk. */
export class EventStreamParser {
  private buffer = ''
  private data: string[] = []
  private id: string | undefined
  private event: string | undefined
  /** Fields of the block so far: a block of `id` or `retry` alone is told too (without an event). */
  private fields = 0

  /** The messages that the text received so far completes. */
  push(text: string): StreamMessage[] {
    this.buffer += text
    const messages: StreamMessage[] = []
    for (;;) {
      const end = this.buffer.search(/\r\n|\r|\n/)
      // A lone \r at the very end may be the first half of \r\n.
      if (end < 0 || (this.buffer[end] === '\r' && end === this.buffer.length - 1)) break
      const line = this.buffer.slice(0, end)
      this.buffer = this.buffer.slice(end + (this.buffer.startsWith('\r\n', end) ? 2 : 1))
      if (line === '') {
        if (this.data.length > 0 || this.event !== undefined || this.fields > 0) {
          messages.push({ id: this.id, event: this.event, data: this.data.join('\n') })
        }
        this.data = []
        this.event = undefined
        this.fields = 0
        continue
      }
      if (line.startsWith(':')) continue
      const colon = line.indexOf(':')
      const field = colon < 0 ? line : line.slice(0, colon)
      let value = colon < 0 ? '' : line.slice(colon + 1)
      if (value.startsWith(' ')) value = value.slice(1)
      this.fields++
      if (field === 'data') this.data.push(value)
      else if (field === 'event') this.event = value
      else if (field === 'id' && !value.includes('\0')) this.id = value
    }
    return messages
  }
}
