import { describe, expect, it } from 'vitest'
import { escapeControls, escapeExceptStyles } from '../../src/text/escape.js'

describe('escapeControls', () => {
  it('writes C0, DEL, C1 and bidi overrides as visible escapes, and keeps every other character', () => {
    expect(escapeControls('a\u001b]0;pwned\u0007b')).toBe('a\\x1b]0;pwned\\x07b')
    expect(escapeControls('\u001b[2J\r\n\t\u0000\u007f')).toBe('\\x1b[2J\\x0d\\x0a\\x09\\x00\\x7f')
    expect(escapeControls('\u009b2J\u0085')).toBe('\\x9b2J\\x85')
    expect(escapeControls('abc\u202egpj.exe\u2066x\u2069\u202a')).toBe(
      'abc\\u202egpj.exe\\u2066x\\u2069\\u202a',
    )
    expect(escapeControls('Zürich 東京 👍 e\u0301 \u200d')).toBe('Zürich 東京 👍 e\u0301 \u200d')
    expect(escapeControls('line\nnext\ttab', '\n\t')).toBe('line\nnext\ttab')
  })
})

describe('escapeExceptStyles', () => {
  it("keeps the CLI's own color codes, newlines and tabs; escapes any other sequence", () => {
    const green = '\u001b[32m✓\u001b[39m'
    expect(escapeExceptStyles(`${green} ok\n\tnext`)).toBe(`${green} ok\n\tnext`)
    expect(escapeExceptStyles('\u001b[1mbold\u001b[22m')).toBe('\u001b[1mbold\u001b[22m')
    // Concealed text, a cleared screen, a window title, a cursor move: all shown, none obeyed.
    expect(escapeExceptStyles('\u001b[8mhidden\u001b[2J\u001b]0;t\u0007\u001b[H')).toBe(
      '\\x1b[8mhidden\\x1b[2J\\x1b]0;t\\x07\\x1b[H',
    )
    expect(escapeExceptStyles('name\u001b')).toBe('name\\x1b')
    expect(escapeExceptStyles('\r\u202e')).toBe('\\x0d\\u202e')
  })
})
