/*
 * Text is data, never control (docs/verification.md, "Text is data, never control"): what a terminal or a log
 * line shows of stored text has its control characters and bidi overrides escaped, so a name cannot set a
 * window title, clear the screen, forge a log line or reorder what is read. Shared by the CLI (terminal
 * output) and the server (the pretty log); free of both.
 */

/** The bidi embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069). */
const isBidiControl = (code: number): boolean =>
  (code >= 0x202a && code <= 0x202e) || (code >= 0x2066 && code <= 0x2069)

/** C0 (but what `keep` allows), DEL and C1 control characters. */
const isControl = (code: number): boolean => code < 0x20 || (code >= 0x7f && code <= 0x9f)

const escaped = (code: number): string =>
  code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`

/**
 * `text` with every control character (C0, DEL, C1) and bidi override written as a visible escape
 * (`\x1b`, `\u202e`), but the characters of `keep` (e.g. `'\n\t'` for free text).
 */
export function escapeControls(text: string, keep = ''): string {
  let out = ''
  for (const char of text) {
    const code = char.codePointAt(0)!
    if ((isControl(code) && !keep.includes(char)) || isBidiControl(code)) out += escaped(code)
    else out += char
  }
  return out
}

/** The SGR codes the CLI's own styles write (bold, dim, their end; red, green, yellow, their end). */
const OWN_STYLES = new Set(['1', '2', '22', '31', '32', '33', '39'])

/**
 * A message that may carry the CLI's own styles: the SGR sequences `ESC [ n m` of those styles are
 * kept; any other escape sequence, control character or bidi override is escaped (newlines and tabs
 * are kept). The text a style wraps was escaped before it was styled (src/cli/output.ts, `Styled`);
 * a table's or record's values never come here: they are escaped, then styled, one by one.
 */
export function escapeExceptStyles(text: string): string {
  const ESC = '\u001b'
  let out = ''
  let i = 0
  while (i < text.length) {
    const at = text.indexOf(ESC, i)
    if (at === -1) {
      out += escapeControls(text.slice(i), '\n\t')
      break
    }
    out += escapeControls(text.slice(i, at), '\n\t')
    let end = at + 1
    if (text[end] === '[') {
      end++
      while (end < text.length && text[end]! >= '0' && text[end]! <= '9') end++
      if (text[end] === 'm' && OWN_STYLES.has(text.slice(at + 2, end))) {
        out += text.slice(at, end + 1)
        i = end + 1
        continue
      }
    }
    out += escapeControls(ESC)
    i = at + 1
  }
  return out
}
