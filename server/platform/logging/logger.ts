import { escapeControls } from '../../../src/text/escape.js'
import { type DestinationStream, type Level, type Logger, type LoggerOptions, pino } from 'pino'

export type { Logger }

/** `json`: one object a line, for machines. `pretty`: one readable line a record, for people. */
export type LogFormat = 'json' | 'pretty'
export type LogLevel = Level | 'silent'

export interface LogSettings {
  /** Unset: pretty when stderr is a terminal, JSON otherwise. */
  format?: LogFormat
  level?: LogLevel
  /** Where lines go; default stderr, written asynchronously. Tests pass a capturing stream. */
  destination?: DestinationStream
}

/**
 * Past this many bytes waiting for a slow stderr reader, new lines are dropped instead of growing the
 * process's memory without bound.
 */
const MAX_BUFFERED_BYTES = 16 * 1024 * 1024

/**
 * pino's `isoTime`, with the text of the current millisecond kept: a busy server logs several lines
 * per millisecond, and `toISOString()` was 3 % of a request's CPU in the benchmark's profile.
 */
function isoTimeOfMillisecond(): () => string {
  let millisecond = -1
  let field = ''
  return () => {
    const now = Date.now()
    if (now !== millisecond) {
      millisecond = now
      field = `,"time":"${new Date(now).toISOString()}"`
    }
    return field
  }
}

/**
 * A JSON logger: `{"level":"info","time":"2026-…Z","pid":…,"hostname":…,…fields,"msg":…}` per line.
 * Lines to stderr are buffered and written asynchronously (pino's sonic-boom: the lines that arrive
 * while a write is under way go out together in the next; flushed at exit), so no request waits on a
 * write.
 */
export function jsonLogger(settings: Omit<LogSettings, 'format'> = {}): Logger {
  const destination =
    settings.destination ?? pino.destination({ dest: 2, sync: false, maxLength: MAX_BUFFERED_BYTES })
  return pino(
    {
      level: settings.level ?? 'info',
      timestamp: isoTimeOfMillisecond(),
      formatters: { level: (label) => ({ level: label }) },
    },
    destination,
  )
}

/** The server's logger in the format asked for, or the one that suits stderr (pretty on a terminal). */
export async function createLogger(settings: LogSettings = {}): Promise<Logger> {
  const format = settings.format ?? (process.stderr.isTTY ? 'pretty' : 'json')
  if (format === 'json') return jsonLogger(settings)
  // Loaded only when asked for: servers logging JSON never load the prettifier.
  const { default: pretty } = await import('pino-pretty')
  const options: LoggerOptions = { level: settings.level ?? 'info' }
  const stream =
    settings.destination ??
    pretty({
      destination: 2,
      colorize: process.stderr.isTTY === true && !process.env.NO_COLOR && process.env.TERM !== 'dumb',
      translateTime: 'SYS:HH:MM:ss.l',
      ignore: 'pid,hostname,method,path,status,duration_ms',
      singleLine: true,
      // One record, one line: control characters and bidi overrides of the message (a path with
      // %0a, a stored name) are escaped, so no record can forge another line or control the terminal.
      messageFormat: (log, messageKey) =>
        escapeControls(
          log.request_id !== undefined && log.status !== undefined
            ? `${log.method} ${log.path} ${log.status} ${log.duration_ms} ms`
            : String(log[messageKey]),
        ),
    })
  return pino(options, stream)
}
