import { Chalk, type ChalkInstance } from 'chalk'
import Table from 'cli-table3'

/** What decides how the CLI writes: `--json`, color, and whether stdout/stderr are terminals. */
export interface OutputOptions {
  json: boolean
  /** False with `--no-color`. */
  color: boolean
  env?: NodeJS.ProcessEnv
  stdout?: NodeJS.WriteStream
  stderr?: NodeJS.WriteStream
}

/** A cell of a table; null and undefined show as a dim dash. */
export type Cell = string | number | boolean | null | undefined

/**
 * Whether to color: never with NO_COLOR (any value), TERM=dumb, `--no-color` or when stdout is not a
 * terminal. chalk alone ignores NO_COLOR, so the decision is made here.
 */
export function colorEnabled(options: {
  color: boolean
  env: NodeJS.ProcessEnv
  isTTY: boolean | undefined
}): boolean {
  if (!options.color || !options.isTTY) return false
  if (options.env.NO_COLOR !== undefined && options.env.NO_COLOR !== '') return false
  return options.env.TERM !== 'dumb'
}

// No rule between rows, so a table reads as one block.
const COMPACT_CHARS = { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' }

/**
 * The one output layer: data on stdout (a human table, or with `--json` the API's JSON exactly),
 * messages on stderr.
 */
export class Output {
  readonly json: boolean
  /** A chalk whose level is 0 when color is off; use it for every styled string. */
  readonly style: ChalkInstance
  private readonly stdout: NodeJS.WriteStream
  private readonly stderr: NodeJS.WriteStream
  private progressWidth = 0

  constructor(options: OutputOptions) {
    this.json = options.json
    this.stdout = options.stdout ?? process.stdout
    this.stderr = options.stderr ?? process.stderr
    const on = colorEnabled({
      color: options.color,
      env: options.env ?? process.env,
      isTTY: this.stdout.isTTY,
    })
    this.style = new Chalk({ level: on ? 1 : 0 })
  }

  /** True when stderr is a terminal: progress lines are shown only then. */
  get interactiveStderr(): boolean {
    return this.stderr.isTTY === true
  }

  /** Prints an API response: its JSON exactly with `--json`, else whatever `human` renders. */
  result(raw: unknown, human: () => void): void {
    if (this.json) this.stdout.write(`${JSON.stringify(raw, null, 2)}\n`)
    else human()
  }

  /** A table with one row per item. */
  table(head: string[], rows: Cell[][]): void {
    if (rows.length === 0) {
      this.info('(none)')
      return
    }
    const table = new Table({
      head: head.map((h) => this.style.bold(h)),
      // cli-table3 colors headers and borders on its own unless told not to; color is ours to decide.
      style: { head: [], border: [] },
      chars: COMPACT_CHARS,
    })
    for (const row of rows) table.push(row.map((cell) => this.cell(cell)))
    this.stdout.write(`${table.toString()}\n`)
  }

  /** One record as a two-column table of field and value. */
  record(fields: Array<[string, Cell]>): void {
    const table = new Table({ style: { head: [], border: [] }, chars: COMPACT_CHARS })
    for (const [name, value] of fields) table.push({ [this.style.bold(name)]: this.cell(value) })
    this.stdout.write(`${table.toString()}\n`)
  }

  /** Plain text data on stdout (a script, a verdict line). */
  line(text: string): void {
    this.stdout.write(`${text}\n`)
  }

  /** A message for the person at the terminal, on stderr. */
  info(text: string): void {
    this.stderr.write(`${text}\n`)
  }

  success(text: string): void {
    this.stderr.write(`${this.style.green('✓')} ${text}\n`)
  }

  warn(text: string): void {
    this.stderr.write(`${this.style.yellow('!')} ${text}\n`)
  }

  /**
   * A transient progress line on stderr, only on a terminal; `progressDone()` clears it. Overwritten
   * with a carriage return and spaces, not escape codes, so NO_COLOR output stays free of them.
   */
  progress(text: string): void {
    if (!this.interactiveStderr) return
    this.stderr.write(`\r${text.padEnd(this.progressWidth)}`)
    this.progressWidth = Math.max(this.progressWidth, text.length)
  }

  progressDone(): void {
    if (!this.interactiveStderr || this.progressWidth === 0) return
    this.stderr.write(`\r${' '.repeat(this.progressWidth)}\r`)
    this.progressWidth = 0
  }

  private cell(value: Cell): string {
    if (value === null || value === undefined) return this.style.dim('-')
    if (typeof value === 'boolean') return value ? this.style.yellow('yes') : 'no'
    return String(value)
  }
}
