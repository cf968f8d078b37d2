import stringWidth from 'fast-string-width'
import { escapeControls, escapeExceptStyles } from '../text/escape.js'
import { EXIT, ExitError } from './exit-error.js'

/*
 * The one output layer. Every command prints through it, and gets four modes for free:
 *
 * - `--json`: the API's JSON exactly (`result(raw, ...)` prints `raw`);
 * - `-q` / `--quiet`: the ids the command names (`result(raw, render, ids)`), one a line, for `xargs`;
 *   a command that names no ids prints nothing, and its exit code is the answer (like `grep -q`);
 * - a terminal: tables and records fitted to the terminal's width, with color;
 * - anything else (a pipe, a file): tab-separated values, each table or record headed by its header
 *   line, blocks separated by a blank line, no box drawing and no escapes.
 *
 * A command renders with `table(head, rows)` and `record(fields)` inside `result`'s callback and
 * never looks at the mode itself.
 */

export { plural } from '../text/plural.js'

/** What decides how the CLI writes: `--json`, `--quiet`, color, and whether stdout/stderr are terminals. */
export interface OutputOptions {
  json: boolean
  /** `-q` / `--quiet`: only ids on stdout, no messages on stderr but warnings and errors. */
  quiet?: boolean
  /** False with `--no-color`. */
  color: boolean
  env?: NodeJS.ProcessEnv
  stdout?: NodeJS.WriteStream
  stderr?: NodeJS.WriteStream
}

/**
 * Text in one of the CLI's own styles (`out.style.red(status)`). Escaping is for data and styling is
 * the CLI's own: on a terminal the text is escaped first, then styled, so the style's escape sequences
 * reach the terminal as they are and nothing in the text can pass for one. In TSV it is its text alone.
 */
export class Styled {
  constructor(
    readonly text: string,
    private readonly paint: (text: string) => string,
  ) {}

  /** For a table or record on a terminal: the text escaped (`keep`: the characters left as they are), then styled. */
  shown(keep = ''): string {
    return this.paint(escapeControls(this.text, keep))
  }

  /** Other text (escaped data) in this one's style. */
  repaint(text: string): string {
    return this.paint(text)
  }

  /** Inside a message (`${style.green('✓')} done`): the text escaped but newlines and tabs, then styled. */
  toString(): string {
    return this.shown('\n\t')
  }
}

/**
 * A cell of a table; null and undefined show as a dim dash on a terminal and as nothing in TSV. A list
 * of strings is a value of several lines: the line breaks are the CLI's own, so each line is escaped
 * alone and the breaks reach the terminal as breaks (a string's own newline is data: shown as `\x0a`).
 */
export type Cell = string | number | boolean | null | undefined | Styled | readonly string[]

/** How stdout is written: see the comment at the top of this file. */
export type OutputMode = 'json' | 'quiet' | 'terminal' | 'tsv'

/**
 * Whether to color: never with NO_COLOR (any value), TERM=dumb, `--no-color` or when stdout is not a
 * terminal.
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

/** The styles the CLI uses; each gives its text in its ANSI escape, or as it is (see `Styled`). */
export interface Style {
  bold(text: string): Styled
  dim(text: string): Styled
  green(text: string): Styled
  yellow(text: string): Styled
  red(text: string): Styled
  /** No style: text as it is (escaped on a terminal like any cell). */
  plain(text: string): Styled
}

/**
 * What a yes or no says, so every table colours it the same way: `good` when yes is the answer hoped
 * for (a check `satisfied`, `all_satisfied`): yes in the green of `approved`, no in the red of
 * `rejected`; `attention` when yes is a state to notice (`frozen`, a key revoked, a subscription
 * cancelled at period end): yes yellow, no plain; `neutral` otherwise (`mutual`): both plain. A bare
 * boolean cell reads as `attention`.
 */
export type YesNoMeaning = 'good' | 'attention' | 'neutral'

/** A yes/no styled for a terminal; piped, it is the boolean it was (`true`, `false`), as the API has it. */
export class YesNo extends Styled {
  constructor(
    readonly value: boolean,
    styled: Styled,
  ) {
    super(styled.text, (text) => styled.repaint(text))
  }
}

/** A yes/no in the colours its meaning gives (`YesNoMeaning`). */
export function yesNo(style: Style, value: boolean, meaning: YesNoMeaning): YesNo {
  const word = value ? 'yes' : 'no'
  if (meaning === 'good') return new YesNo(value, value ? style.green(word) : style.red(word))
  return new YesNo(value, meaning === 'attention' && value ? style.yellow(word) : style.plain(word))
}

/**
 * The styles, colored or plain. The ANSI codes of the 16 basic colors (what chalk's level 1 wrote):
 * a few bytes of our own instead of loading chalk on every command (~25 ms of cold start).
 */
export function makeStyle(on: boolean): Style {
  const plain = (text: string) => text
  const wrap = (open: number, close: number): ((text: string) => Styled) => {
    if (!on) return (text) => new Styled(text, plain)
    const [o, c] = [`\x1b[${open}m`, `\x1b[${close}m`]
    // As chalk did: each line is styled on its own (so a table cut into lines keeps its colors and
    // never bleeds into the next). The text is escaped data by then: it holds no escape of its own.
    const paint = (text: string) => o + text.replace(/\r?\n/g, (eol) => `${c}${eol}${o}`) + c
    return (text) => new Styled(text, paint)
  }
  return {
    bold: wrap(1, 22),
    dim: wrap(2, 22),
    green: wrap(32, 39),
    yellow: wrap(33, 39),
    red: wrap(31, 39),
    plain: (text) => new Styled(text, plain),
  }
}

/** The width to fit: the terminal's columns, else `COLUMNS`, else 80; never below 20. */
export function terminalWidth(stdout: { columns?: number }, env: NodeJS.ProcessEnv): number {
  const fromEnv = Number(env.COLUMNS)
  const width =
    stdout.columns && stdout.columns > 0
      ? stdout.columns
      : Number.isInteger(fromEnv) && fromEnv > 0
        ? fromEnv
        : 80
  return Math.max(20, width)
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: matching terminal escapes is the point
const ANSI = /\x1b\[[0-9;]*m/g

/**
 * Columns a string takes on a terminal: East Asian wide and fullwidth characters (CJK) and emoji take
 * two, combining marks none, escapes none, every other character one.
 */
export const visibleWidth = (text: string): number => stringWidth(text.replace(ANSI, ''))

let graphemes: Intl.Segmenter | undefined

/** `word` cut into pieces of at most `width` columns, never inside a character (a grapheme). */
function cutToWidth(word: string, width: number): string[] {
  graphemes ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' })
  const pieces: string[] = []
  let piece = ''
  let used = 0
  for (const { segment } of graphemes.segment(word)) {
    const w = visibleWidth(segment)
    if (used + w > width && piece !== '') {
      pieces.push(piece)
      piece = ''
      used = 0
    }
    piece += segment
    used += w
  }
  if (piece !== '') pieces.push(piece)
  return pieces
}

/**
 * Breaks `text` into lines of at most `width` columns: at spaces where it can, inside a word (a DID,
 * an id) where it must, never inside a character. Styled text that needs breaking loses its style.
 */
export function wrapText(text: string, width: number): string[] {
  const out: string[] = []
  for (const paragraph of text.split('\n')) {
    if (visibleWidth(paragraph) <= width) {
      out.push(paragraph)
      continue
    }
    const plain = paragraph.replace(ANSI, '')
    const indent = /^ */.exec(plain)![0]
    const room = Math.max(1, width - indent.length)
    const lines: string[] = []
    let line = ''
    for (const word of plain.slice(indent.length).split(/ +/)) {
      if (line !== '' && visibleWidth(line) + 1 + visibleWidth(word) <= room) {
        line += ` ${word}`
        continue
      }
      if (line !== '') lines.push(line)
      const pieces = visibleWidth(word) > room ? cutToWidth(word, room) : [word]
      lines.push(...pieces.slice(0, -1))
      line = pieces.at(-1) ?? ''
    }
    if (line !== '') lines.push(line)
    out.push(...lines.map((l) => indent + l))
  }
  return out
}

const isLines = (value: Cell): value is readonly string[] => Array.isArray(value)

/**
 * A value as one TSV field: no tabs, no line breaks. Lines are joined with "; ", and the `- item`
 * lines of a list with ", " after their `name:` line.
 */
export function tsvField(value: Cell): string {
  if (value === null || value === undefined) return ''
  if (value instanceof YesNo) return String(value.value)
  const lines = (value instanceof Styled ? value.text : isLines(value) ? value.join('\n') : String(value))
    .replace(ANSI, '')
    .replaceAll('\t', ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
  let text = ''
  for (const line of lines) {
    if (text === '') text = line
    else if (line.startsWith('- ')) text += `${text.endsWith(':') ? ' ' : ', '}${line.slice(2)}`
    else text += `; ${line}`
  }
  return text
}

const GAP = '  '

/**
 * Lays out a table for a terminal `width` columns wide, borderless like gh. When the columns do not
 * fit, the widest ones after the first (the id) leave the grid, one at a time until it fits, and each
 * row's value of them is printed under the row on its own line (`  header: value`, wrapped), so long
 * DIDs and reasons stay whole and readable.
 */
export function fitTable(head: string[], rows: string[][], width: number): string[] {
  const cellWidth = (cell: string) => Math.max(0, ...cell.split('\n').map(visibleWidth))
  const natural = head.map((h, i) => Math.max(visibleWidth(h), ...rows.map((r) => cellWidth(r[i] ?? ''))))
  const kept = head.map((_, i) => i)
  const gridWidth = () => kept.reduce((sum, i) => sum + natural[i]!, 0) + GAP.length * (kept.length - 1)
  while (gridWidth() > width && kept.length > 1) {
    const widest = kept.slice(1).reduce((a, b) => (natural[b]! > natural[a]! ? b : a))
    kept.splice(kept.indexOf(widest), 1)
  }
  const detached = head.map((_, i) => i).filter((i) => !kept.includes(i))
  // A lone first column wider than the terminal wraps inside its cell.
  const colWidth = (i: number) => (kept.length === 1 ? Math.min(natural[i]!, width) : natural[i]!)

  const pad = (text: string, w: number) => text + ' '.repeat(Math.max(0, w - visibleWidth(text)))
  const gridLines = (cells: string[]): string[] => {
    const wrapped = kept.map((i) => {
      const cell = cells[i] ?? ''
      return cellWidth(cell) > colWidth(i) ? wrapText(cell, colWidth(i)) : cell.split('\n')
    })
    const height = Math.max(...wrapped.map((lines) => lines.length))
    const lines: string[] = []
    for (let l = 0; l < height; l++) {
      const parts = wrapped.map((cellLines, k) =>
        k === wrapped.length - 1 ? (cellLines[l] ?? '') : pad(cellLines[l] ?? '', colWidth(kept[k]!)),
      )
      lines.push(parts.join(GAP).trimEnd())
    }
    return lines
  }

  const lines = gridLines(head)
  for (const row of rows) {
    lines.push(...gridLines(row))
    for (const i of detached) {
      const label = `  ${head[i]}: `
      const value = row[i] ?? ''
      const valueLines = value.split('\n')
      // One line that fits follows its label; anything longer starts below it, indented.
      if (valueLines.length === 1 && visibleWidth(label) + visibleWidth(value) <= width) {
        lines.push(`${label}${value}`)
        continue
      }
      if (valueLines.length === 1) {
        const plain = value.replace(ANSI, '').replace(/ +/g, ' ')
        const first = wrapText(plain, width - visibleWidth(label))[0] ?? ''
        lines.push(`${label}${first}`)
        const rest = plain.slice(first.length).trimStart()
        if (rest !== '') lines.push(...wrapText(rest, width - 4).map((l) => `    ${l}`))
        continue
      }
      lines.push(label.trimEnd())
      for (const valueLine of valueLines) lines.push(...wrapText(`    ${valueLine}`, width))
    }
  }
  return lines.map((line) => line.trimEnd())
}

/** Lays out a record (field and value) for a terminal: values wrap under themselves, aligned. */
export function fitRecord(fields: Array<[string, string]>, width: number): string[] {
  const nameWidth = Math.max(0, ...fields.map(([name]) => visibleWidth(name)))
  const valueWidth = width - nameWidth - GAP.length
  const lines: string[] = []
  for (const [name, value] of fields) {
    const label = name + ' '.repeat(nameWidth - visibleWidth(name)) + GAP
    // Too narrow to sit beside the names: the value goes under its name.
    if (valueWidth < 16) {
      lines.push(name, ...wrapText(value, width - 2).map((l) => `  ${l}`))
      continue
    }
    const valueLines = value
      .split('\n')
      .flatMap((l) => (visibleWidth(l) > valueWidth ? wrapText(l, valueWidth) : [l]))
    lines.push(`${label}${valueLines[0] ?? ''}`.trimEnd())
    for (const more of valueLines.slice(1)) lines.push(`${' '.repeat(visibleWidth(label))}${more}`.trimEnd())
  }
  return lines
}

export class Output {
  readonly mode: OutputMode
  /** The styles, plain when color is off; use it for every styled string. */
  readonly style: Style
  private readonly stdout: NodeJS.WriteStream
  private readonly stderr: NodeJS.WriteStream
  private readonly env: NodeJS.ProcessEnv
  private progressWidth = 0
  /** Tables and records written so far: the next one is set apart by a blank line. */
  private blocks = 0

  constructor(options: OutputOptions) {
    if (options.json && options.quiet) {
      throw new ExitError(EXIT.usage, 'give --json or --quiet, not both')
    }
    this.stdout = options.stdout ?? process.stdout
    this.stderr = options.stderr ?? process.stderr
    this.env = options.env ?? process.env
    this.mode = options.json
      ? 'json'
      : options.quiet
        ? 'quiet'
        : this.stdout.isTTY === true
          ? 'terminal'
          : 'tsv'
    const on = colorEnabled({ color: options.color, env: this.env, isTTY: this.stdout.isTTY })
    this.style = makeStyle(on)
  }

  /** True with `--json`. */
  get json(): boolean {
    return this.mode === 'json'
  }

  /** True with `--quiet`. */
  get quiet(): boolean {
    return this.mode === 'quiet'
  }

  /** True when stderr is a terminal: progress lines are shown only then. */
  get interactiveStderr(): boolean {
    return this.stderr.isTTY === true
  }

  /**
   * Prints a command's answer: with `--json` the JSON `raw` exactly; with `--quiet` the `ids` (one a
   * line; nothing when the command names none); otherwise whatever `render` prints with `table`,
   * `record` and `line`.
   */
  result(raw: unknown, render: () => void, ids: readonly string[] = []): void {
    if (this.mode === 'json') this.stdout.write(`${JSON.stringify(raw, null, 2)}\n`)
    else if (this.mode === 'quiet') {
      for (const id of ids) this.stdout.write(`${id}\n`)
    } else render()
  }

  /** A table with one row per item: fitted to a terminal, or TSV with its header line. */
  table(head: string[], rows: Cell[][], options: { title?: string } = {}): void {
    if (this.mode === 'quiet' || this.mode === 'json') return
    if (this.mode === 'tsv') {
      this.block([head.join('\t'), ...rows.map((row) => row.map(tsvField).join('\t'))])
      return
    }
    const title = options.title ? [this.style.bold(options.title).shown()] : []
    if (rows.length === 0) {
      this.block([...title, this.style.dim('(none)').shown()])
      return
    }
    const lines = fitTable(
      head.map((h) => this.style.bold(h).shown()),
      rows.map((row) => row.map((cell) => this.cell(cell))),
      this.width,
    )
    this.block([...title, ...lines])
  }

  /** One record as field and value: aligned and wrapped on a terminal, `field<TAB>value` lines in TSV. */
  record(fields: Array<[string, Cell]>): void {
    if (this.mode === 'quiet' || this.mode === 'json') return
    if (this.mode === 'tsv') {
      this.block(['field\tvalue', ...fields.map(([name, value]) => `${tsvField(name)}\t${tsvField(value)}`)])
      return
    }
    this.block(
      fitRecord(
        fields.map(([name, value]) => [this.style.bold(name).shown(), this.cell(value)]),
        this.width,
      ),
    )
  }

  /** Plain text data on stdout (a script, a verdict line). Not in quiet mode. */
  line(text: string): void {
    if (this.mode === 'quiet') return
    this.stdout.write(`${this.onTerminal(this.stdout, text)}\n`)
  }

  /** A message for the person at the terminal, on stderr (not with --quiet). */
  info(text: string): void {
    if (this.mode === 'quiet') return
    this.stderr.write(`${this.onTerminal(this.stderr, text)}\n`)
  }

  success(text: string): void {
    if (this.mode === 'quiet') return
    this.stderr.write(`${this.style.green('✓').shown()} ${this.onTerminal(this.stderr, text)}\n`)
  }

  /** A warning, on stderr even with --quiet. */
  warn(text: string): void {
    this.stderr.write(`${this.style.yellow('!').shown()} ${this.onTerminal(this.stderr, text)}\n`)
  }

  /**
   * Text for `stream`: on a terminal, control characters and bidi overrides other than the CLI's own
   * styles, newlines and tabs are escaped (docs/verification.md, "Text is data, never control"). The styled parts
   * of a message were escaped before they were styled (`Styled`).
   */
  private onTerminal(stream: NodeJS.WriteStream, text: string): string {
    return stream.isTTY === true ? escapeExceptStyles(text) : text
  }

  /**
   * A transient progress line on stderr, only on a terminal; `progressDone()` clears it. Overwritten
   * with a carriage return and spaces, not escape codes, so NO_COLOR output stays free of them.
   */
  progress(text: string): void {
    if (!this.interactiveStderr || this.mode === 'quiet') return
    const shown = escapeControls(text)
    this.stderr.write(`\r${shown.padEnd(this.progressWidth)}`)
    this.progressWidth = Math.max(this.progressWidth, shown.length)
  }

  progressDone(): void {
    if (!this.interactiveStderr || this.progressWidth === 0) return
    this.stderr.write(`\r${' '.repeat(this.progressWidth)}\r`)
    this.progressWidth = 0
  }

  /** The width tables and records fit on a terminal. */
  get width(): number {
    return terminalWidth(this.stdout, this.env)
  }

  private block(lines: string[]): void {
    if (this.blocks++ > 0) this.stdout.write('\n')
    this.stdout.write(`${lines.join('\n')}\n`)
  }

  /**
   * A value of a table or record on a terminal: its control characters and bidi overrides escaped, and
   * only then, for a styled value, its style.
   */
  private cell(value: Cell): string {
    if (value === null || value === undefined) return this.style.dim('-').shown()
    if (typeof value === 'boolean') return yesNo(this.style, value, 'attention').shown()
    if (value instanceof Styled) return value.shown()
    if (isLines(value)) return value.map((line) => escapeControls(line)).join('\n')
    return escapeControls(String(value))
  }
}
