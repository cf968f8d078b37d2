import stringWidth from 'fast-string-width'
import { describe, expect, it } from 'vitest'
import { ExitError } from '../../src/cli/exit-error.js'
import {
  fitRecord,
  fitTable,
  makeStyle,
  Output,
  terminalWidth,
  tsvField,
  visibleWidth,
  wrapText,
  yesNo,
} from '../../src/cli/output.js'

/** A stream that keeps what is written to it, with the terminal properties a test gives it. */
function sink(props: { isTTY?: boolean; columns?: number } = {}) {
  let text = ''
  const stream = {
    ...props,
    write(chunk: string) {
      text += chunk
      return true
    },
  }
  return { stream: stream as unknown as NodeJS.WriteStream, text: () => text }
}

const DID = 'did:web:acme-holdings-international:treasury-operations-desk-7'
const REASON = 'no investor_qualification attestation of recipient did:web:acme:carol recognised by SG'

const CHECKS_HEAD = ['requirement', 'jurisdiction', 'satisfied', 'evidence', 'reason']
const CHECKS = [
  [
    'token_active',
    'US',
    'yes',
    'tok_01M841GKXPYXZWRX80Z0ZYSFX1',
    'token tok_01M841GKXPYXZWRX80Z0ZYSFX1 is active',
  ],
  ['investor_qualification', 'SG', 'no', '-', REASON],
]

describe('fitTable (a terminal)', () => {
  it('prints a table that fits as one grid, columns aligned', () => {
    const lines = fitTable(
      ['id', 'name'],
      [
        ['US', 'United States'],
        ['SG', 'Singapore'],
      ],
      80,
    )
    expect(lines).toEqual(['id  name', 'US  United States', 'SG  Singapore'])
  })

  it.each([80, 60, 40, 24])(
    'at %i columns every line fits and every value is shown whole or wrapped',
    (width) => {
      const lines = fitTable(CHECKS_HEAD, CHECKS, width)
      for (const line of lines) expect(visibleWidth(line), line).toBeLessThanOrEqual(width)
      const joined = lines.join(' ').replace(/\s+/g, ' ')
      for (const row of CHECKS)
        for (const cell of row) expect(joined.replace(/\s/g, '')).toContain(cell.replace(/\s/g, ''))
    },
  )

  it('moves the widest columns after the id out of the grid, onto their own lines under each row', () => {
    const lines = fitTable(CHECKS_HEAD, CHECKS, 80)
    expect(lines[0]).toBe('requirement             jurisdiction  satisfied  evidence')
    expect(lines[1]).toBe('token_active            US            yes        tok_01M841GKXPYXZWRX80Z0ZYSFX1')
    expect(lines[2]).toBe('  reason: token tok_01M841GKXPYXZWRX80Z0ZYSFX1 is active')
    // Too long for one line: it continues below, indented.
    const at = lines.findIndex((l) => l.startsWith('  reason: no investor_qualification'))
    expect(`${lines[at]} ${lines[at + 1]!.trim()}`).toBe(`  reason: ${REASON}`)
    const narrow = fitTable(CHECKS_HEAD, CHECKS, 50)
    expect(narrow[0]).toBe('requirement             jurisdiction  satisfied')
    expect(narrow).toContain('  evidence: tok_01M841GKXPYXZWRX80Z0ZYSFX1')
  })

  it('keeps a DID longer than the terminal readable: broken only where it must be', () => {
    const lines = fitTable(['holder_did', 'amount'], [[DID, '10']], 30)
    for (const line of lines) expect(visibleWidth(line)).toBeLessThanOrEqual(30)
    expect(lines.join('').replace(/\s/g, '')).toContain(DID)
  })
})

describe('fitRecord, wrapText, tsvField', () => {
  it('aligns values and wraps a long one under itself', () => {
    const lines = fitRecord(
      [
        ['status', 'rejected'],
        ['reason', REASON],
      ],
      40,
    )
    expect(lines[0]).toBe('status  rejected')
    expect(lines[1]!.startsWith('reason  no investor_qualification')).toBe(true)
    for (const line of lines.slice(2)) expect(line.startsWith('        ')).toBe(true)
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(40)
  })

  it('wraps at spaces, and inside a word only when the word alone is too long', () => {
    expect(wrapText('aaa bbb ccc', 7)).toEqual(['aaa bbb', 'ccc'])
    expect(wrapText('abcdefghij', 4)).toEqual(['abcd', 'efgh', 'ij'])
    expect(wrapText('  - a long item here', 10)).toEqual(['  - a long', '  item', '  here'])
  })

  it('makes one TSV field of any value: no tabs, no line breaks, list items joined', () => {
    expect(tsvField(null)).toBe('')
    expect(tsvField(true)).toBe('true')
    expect(tsvField('a\tb')).toBe('a b')
    expect(tsvField('from: US\nreasons:\n  - no aml\n  - no kyc')).toBe('from: US; reasons: no aml, no kyc')
    expect(tsvField('\x1b[32mapproved\x1b[39m')).toBe('approved')
  })

  it('takes the width from the terminal, else COLUMNS, else 80', () => {
    expect(terminalWidth({ columns: 132 }, {})).toBe(132)
    expect(terminalWidth({}, { COLUMNS: '100' })).toBe(100)
    expect(terminalWidth({}, {})).toBe(80)
  })
})

describe('display width: wide characters take two columns, combining marks none', () => {
  it.each([
    ['abc', 3],
    ['東京', 4],
    ['서울', 4],
    ['Ａ', 2],
    ['ｱｲ', 2],
    ['e\u0301', 1],
    ['🙂', 2],
    ['👨‍👩‍👧', 2],
    ['\x1b[1m東京\x1b[22m', 4],
  ])('%j is %i columns', (text, width) => {
    expect(visibleWidth(text)).toBe(width)
  })

  it('keeps the columns of a table aligned whatever the script of its cells', () => {
    const lines = fitTable(
      ['name', 'code', 'type'],
      [
        ['東京都千代田区', 'JP', 'commercial'],
        ['Austin', 'US', 'office'],
        ['🏢 tower', 'EM', 'mixed'],
        ['Zu\u0308rich', 'CH', 'residential'],
      ],
      80,
    )
    // 東京都千代田区 is 14 columns wide, 🏢 two, the combining umlaut none.
    expect(lines).toEqual([
      `name${' '.repeat(10)}  code  type`,
      '東京都千代田区  JP    commercial',
      `Austin${' '.repeat(8)}  US    office`,
      `🏢 tower${' '.repeat(6)}  EM    mixed`,
      `Zu\u0308rich${' '.repeat(8)}  CH    residential`,
    ])
  })

  it('wraps wide text by its columns, never inside a character', () => {
    const text = '東京都千代田区丸の内一丁目 👨‍👩‍👧👨‍👩‍👧👨‍👩‍👧👨‍👩‍👧👨‍👩‍👧'
    const lines = wrapText(text, 9)
    for (const line of lines) expect(stringWidth(line), line).toBeLessThanOrEqual(9)
    expect(lines.join('').replaceAll(' ', '')).toBe(text.replaceAll(' ', ''))
    for (const line of lines) expect(line).not.toMatch(/^\u200d|\u200d$/)
    const fitted = fitTable(['holder', 'amount'], [['持株会社👨‍👩‍👧東京支店第二営業部', '10']], 16)
    for (const line of fitted) expect(stringWidth(line), line).toBeLessThanOrEqual(16)
  })

  it('a record wraps its values under themselves when its names are styled', () => {
    const bold = (t: string) => `\x1b[1m${t}\x1b[22m`
    const lines = fitRecord([[bold('address'), '東京都千代田区丸の内一丁目一番一号 東京駅前ビル']], 30)
    expect(lines.length).toBeGreaterThan(1)
    for (const line of lines.slice(1)) expect(/^ */.exec(line)![0].length).toBe('address  '.length)
    // fast-string-width gives escapes no width: it measures what the terminal shows.
    for (const line of lines) expect(stringWidth(line), line).toBeLessThanOrEqual(30)
  })
})

describe('Output modes', () => {
  const render = (out: Output) => () => {
    out.record([
      ['transfer_id', 'tx_1'],
      ['proof_id', null],
      ['all_satisfied', false],
    ])
    out.table(['requirement', 'reason'], [['kyc', 'ok\nsecond line']])
  }

  it('piped: each block is TSV with its header line, blocks apart, nothing on stderr', () => {
    const stdout = sink()
    const stderr = sink()
    const out = new Output({
      json: false,
      color: true,
      stdout: stdout.stream,
      stderr: stderr.stream,
      env: {},
    })
    expect(out.mode).toBe('tsv')
    out.result({}, render(out), ['tx_1'])
    expect(stdout.text()).toBe(
      'field\tvalue\ntransfer_id\ttx_1\nproof_id\t\nall_satisfied\tfalse\n\nrequirement\treason\nkyc\tok; second line\n',
    )
    expect(stderr.text()).toBe('')
  })

  it('an empty list piped is its header line alone', () => {
    const stdout = sink()
    const out = new Output({
      json: false,
      color: false,
      stdout: stdout.stream,
      stderr: sink().stream,
      env: {},
    })
    out.table(['id', 'name'], [])
    expect(stdout.text()).toBe('id\tname\n')
  })

  it('--quiet prints the ids only, and no messages but warnings', () => {
    const stdout = sink({ isTTY: true, columns: 80 })
    const stderr = sink()
    const out = new Output({
      json: false,
      quiet: true,
      color: false,
      stdout: stdout.stream,
      stderr: stderr.stream,
      env: {},
    })
    out.result({}, render(out), ['tx_1', 'tx_2'])
    out.info('2 of 2 transfers')
    out.success('done')
    out.warn('store this key')
    expect(stdout.text()).toBe('tx_1\ntx_2\n')
    expect(stderr.text()).toBe('! store this key\n')
  })

  it('--json prints the raw answer; --json with --quiet is a usage error', () => {
    const stdout = sink({ isTTY: true })
    const out = new Output({ json: true, color: true, stdout: stdout.stream, stderr: sink().stream, env: {} })
    out.result({ a: 1 }, render(out), ['x'])
    expect(JSON.parse(stdout.text())).toEqual({ a: 1 })
    expect(() => new Output({ json: true, quiet: true, color: true })).toThrow(ExitError)
  })

  it('a terminal: fitted to its columns, with color unless NO_COLOR', () => {
    const stdout = sink({ isTTY: true, columns: 40 })
    const out = new Output({
      json: false,
      color: true,
      stdout: stdout.stream,
      stderr: sink().stream,
      env: {},
    })
    out.table(CHECKS_HEAD, CHECKS, { title: 'compliance checks' })
    expect(stdout.text()).toContain('\x1b[')
    for (const line of stdout.text().trimEnd().split('\n')) expect(visibleWidth(line)).toBeLessThanOrEqual(40)
    const plain = sink({ isTTY: true, columns: 40 })
    new Output({
      json: false,
      color: true,
      stdout: plain.stream,
      stderr: sink().stream,
      env: { NO_COLOR: '1' },
    }).table(CHECKS_HEAD, CHECKS)
    expect(plain.text()).not.toContain('\x1b[')
  })
})

describe('styles over escaped data', () => {
  const terminal = (env: NodeJS.ProcessEnv = {}) => {
    const stdout = sink({ isTTY: true, columns: 80 })
    const out = new Output({ json: false, color: true, stdout: stdout.stream, stderr: sink().stream, env })
    return { out, text: stdout.text }
  }

  it('a styled cell is escaped as data, then styled for real; its columns stay aligned', () => {
    const { out, text } = terminal()
    out.table(
      ['id', 'status', 'name'],
      [
        ['a', out.style.red('rejected'), 'x'],
        ['b', out.style.green('approved'), 'y'],
        ['c', out.style.red('bad\x1b[32mgreen'), '\x1b[31mred'],
      ],
    )
    const lines = text().trimEnd().split('\n')
    expect(lines[1]).toBe('a   \x1b[31mrejected\x1b[39m          x')
    expect(lines[2]).toBe('b   \x1b[32mapproved\x1b[39m          y')
    // What a value holds is data: a sequence inside it, even one the CLI itself uses, is shown.
    expect(lines[3]).toBe('c   \x1b[31mbad\\x1b[32mgreen\x1b[39m  \\x1b[31mred')
    expect(text()).not.toContain('\\x1b[39m')
  })

  it('NO_COLOR: no sequence at all, the data still escaped; piped: the text as it is', () => {
    const { out, text } = terminal({ NO_COLOR: '1' })
    out.record([
      ['status', out.style.red('revoked\u202e')],
      ['name', 'n\x1b[2J'],
    ])
    expect(text()).toBe('status  revoked\\u202e\nname    n\\x1b[2J\n')
    const piped = sink()
    const tsv = new Output({ json: false, color: true, stdout: piped.stream, stderr: sink().stream, env: {} })
    tsv.table(['status'], [[tsv.style.red('rejected')]])
    expect(piped.text()).toBe('status\nrejected\n')
  })

  it('a message keeps its styles and escapes its data', () => {
    const stderr = sink({ isTTY: true })
    const out = new Output({
      json: false,
      color: true,
      stdout: sink({ isTTY: true }).stream,
      stderr: stderr.stream,
      env: {},
    })
    out.info(`${out.style.green('active\x1b[31m')}: list \x1b]0;t\x07`)
    expect(stderr.text()).toBe('\x1b[32mactive\\x1b[31m\x1b[39m: list \\x1b]0;t\\x07\n')
  })
})

describe('yes and no', () => {
  const colored = makeStyle(true)
  const shown = (value: boolean, meaning: 'good' | 'attention' | 'neutral') =>
    yesNo(colored, value, meaning).shown()

  it('are coloured by what they mean, the same in every table', () => {
    // A check: yes in the green of approved, no in the red of rejected.
    expect([shown(true, 'good'), shown(false, 'good')]).toEqual(['\x1b[32myes\x1b[39m', '\x1b[31mno\x1b[39m'])
    // A state to notice (frozen, revoked): yes yellow, no plain; a bare boolean cell reads so too.
    expect([shown(true, 'attention'), shown(false, 'attention')]).toEqual(['\x1b[33myes\x1b[39m', 'no'])
    expect([shown(true, 'neutral'), shown(false, 'neutral')]).toEqual(['yes', 'no'])
  })

  it('piped, are the booleans they were, as a bare boolean is', () => {
    for (const meaning of ['good', 'attention', 'neutral'] as const) {
      expect(tsvField(yesNo(colored, true, meaning))).toBe(tsvField(true))
      expect(tsvField(yesNo(colored, false, meaning))).toBe('false')
    }
    expect(yesNo(makeStyle(false), false, 'good').shown()).toBe('no')
  })
})
