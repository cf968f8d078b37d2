import type { DestinationStream } from 'pino'

/** What the lines are written to: stderr by default (a pipe, a file or a terminal). */
export interface LineSink {
  write(chunk: string): unknown
  /** Bytes the sink holds that the operating system has not taken yet (a stream's `writableLength`). */
  readonly writableLength?: number
}

/** Every writer with lines waiting, so that they are written before the process exits. */
const waiting = new Set<LineWriter>()
let exitHookInstalled = false

/**
 * A log destination that gathers the lines of one turn of the event loop and hands them to `sink` in
 * one write at the end of that turn (`setImmediate`). A busy server answers several requests per turn,
 * so their log lines cost one write between them instead of one each.
 *
 * Why not pino's sonic-boom: its asynchronous mode writes through libuv's thread pool, so each write is
 * a hand-off to a worker thread and back; on a server pinned to one core that hand-off and the worker's
 * wake-up were the largest single cost of a request in the benchmark's profile (`writeString`, about a
 * fifth of `GET /console/billing/pricing`). `process.stderr` writes on the main thread instead: libuv
 * tries the write at once and, only when a pipe is full, keeps the rest and waits for the reader
 * without blocking the loop.
 *
 * Past `maxBufferedBytes` waiting for a slow reader, new lines are dropped instead of growing the
 * process's memory without bound (as sonic-boom's `maxLength` did).
 */
export class LineWriter implements DestinationStream {
  private pending: string[] = []
  private pendingBytes = 0
  private scheduled = false
  private readonly flushTurn = () => this.flushNow()

  constructor(
    private readonly sink: LineSink,
    private readonly maxBufferedBytes: number,
  ) {}

  write(line: string): void {
    if (this.pendingBytes + (this.sink.writableLength ?? 0) > this.maxBufferedBytes) return
    this.pending.push(line)
    // Length in UTF-16 units: close enough to bytes for a bound on memory.
    this.pendingBytes += line.length
    if (!this.scheduled) {
      this.scheduled = true
      waiting.add(this)
      installExitHook()
      setImmediate(this.flushTurn)
    }
  }

  /** Hands every waiting line to the sink now. */
  flushNow(): void {
    this.scheduled = false
    waiting.delete(this)
    if (this.pending.length === 0) return
    const text = this.pending.join('')
    this.pending = []
    this.pendingBytes = 0
    this.sink.write(text)
  }

  /** pino's `logger.flush(cb)`: the lines are handed to the sink before `cb` runs. */
  flush(cb?: (error?: Error) => void): void {
    this.flushNow()
    cb?.()
  }

  /** pino's synchronous flush (`pino.final`, exit handlers). */
  flushSync(): void {
    this.flushNow()
  }
}

function installExitHook(): void {
  if (exitHookInstalled) return
  exitHookInstalled = true
  process.once('exit', () => {
    for (const writer of waiting) writer.flushNow()
  })
}
