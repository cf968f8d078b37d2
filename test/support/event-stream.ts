import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { type StreamMessage, EventStreamParser } from '../../src/client/event-stream.js'
import { closeEventStreams } from '../../server/areas/events/stream.js'
import { createHttpServer } from '../../server/platform/http/node-server.js'
import type { TestInstance } from './harness.js'

/** A harness instance served over real HTTP on loopback, as a server process serves it. */
export async function serveOverHttp(
  instance: TestInstance,
): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createHttpServer((request) => instance.app.fetch(request), {
    logError: instance.ctx.logError,
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    url,
    async close() {
      await closeEventStreams(instance.ctx)
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    },
  }
}

/**
 * An event stream opened with fetch: every frame's text as received (`raw`), the messages parsed, and
 * `next` to wait for the following one.
 */
export class TestEventStream {
  raw = ''
  readonly messages: StreamMessage[] = []
  status = 0
  headers = new Headers()
  ended = false
  private readonly controller = new AbortController()
  private readonly parser = new EventStreamParser()
  private waiters: Array<() => void> = []

  static async open(
    url: string,
    key: string,
    options: { events?: string; lastEventId?: string } = {},
  ): Promise<TestEventStream> {
    const stream = new TestEventStream()
    const target = new URL('/console/events/stream', url)
    if (options.events !== undefined) target.searchParams.set('events', options.events)
    const res = await fetch(target, {
      headers: {
        'X-API-Key': key,
        accept: 'text/event-stream',
        ...(options.lastEventId ? { 'Last-Event-ID': options.lastEventId } : {}),
      },
      signal: stream.controller.signal,
    })
    stream.status = res.status
    stream.headers = res.headers
    if (res.status !== 200) {
      stream.raw = await res.text()
      stream.ended = true
      return stream
    }
    void stream.pump(res.body!)
    // The opening frame says the stream is reading: events committed from here on reach it.
    await stream.until(() => stream.messages.length > 0, 'the opening frame')
    return stream
  }

  /** The events (messages with an event type) received so far. */
  events(): StreamMessage[] {
    return this.messages.filter((m) => m.event !== undefined)
  }

  async until(check: () => boolean, what: string, ms = 15_000): Promise<void> {
    const end = Date.now() + ms
    while (!check()) {
      if (this.ended && !check()) throw new Error(`the stream ended before ${what}`)
      const left = end - Date.now()
      if (left <= 0) throw new Error(`timed out waiting for ${what}; received:\n${this.raw}`)
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left)
        this.waiters.push(() => {
          clearTimeout(timer)
          resolve()
        })
      })
    }
  }

  close(): void {
    this.controller.abort()
  }

  private async pump(body: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder()
    try {
      for await (const chunk of body) {
        const text = decoder.decode(chunk, { stream: true })
        this.raw += text
        this.messages.push(...this.parser.push(text))
        this.notify()
      }
    } catch {
      // aborted
    } finally {
      this.ended = true
      this.notify()
    }
  }

  private notify(): void {
    const waiters = this.waiters
    this.waiters = []
    for (const wake of waiters) wake()
  }
}
