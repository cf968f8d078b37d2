/*
 * RFC 4180 CSV, read whole: fields separated by commas, records by CRLF or LF, a field in double quotes
 * may hold commas, line breaks and doubled quotes. The first record names the fields.
 */

/** A record with its line number in the file (for messages: `line 12`). */
export interface CsvRow {
  line: number
  values: Record<string, string>
}

/** Thrown for text that is not CSV: an unclosed quote, a quote inside an unquoted field, a ragged row. */
export class CsvError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(`line ${line}: ${message}`)
    this.name = 'CsvError'
  }
}

/** Every record of `text` as fields by header name; blank lines are skipped. */
export function parseCsv(text: string): { header: string[]; rows: CsvRow[] } {
  const records = splitRecords(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text)
  const first = records.shift()
  if (!first) throw new CsvError(1, 'the file is empty: the first line names the fields')
  const header = first.fields.map((name) => name.trim())
  const seen = new Set<string>()
  for (const name of header) {
    if (name === '') throw new CsvError(first.line, 'a column of the header has no name')
    if (seen.has(name)) throw new CsvError(first.line, `the header names ${name} twice`)
    seen.add(name)
  }
  const rows = records.map(({ line, fields }) => {
    if (fields.length !== header.length)
      throw new CsvError(line, `${fields.length} fields where the header has ${header.length}`)
    const values: Record<string, string> = {}
    header.forEach((name, i) => {
      values[name] = fields[i]!
    })
    return { line, values }
  })
  return { header, rows }
}

function splitRecords(text: string): Array<{ line: number; fields: string[] }> {
  const records: Array<{ line: number; fields: string[] }> = []
  let fields: string[] = []
  let field = ''
  let quoted = false
  let wasQuoted = false
  let line = 1
  let recordLine = 1
  const endField = () => {
    fields.push(field)
    field = ''
    wasQuoted = false
  }
  const endRecord = () => {
    const quotedLast = wasQuoted
    endField()
    // A blank line is no record.
    if (!(fields.length === 1 && fields[0] === '' && !quotedLast)) records.push({ line: recordLine, fields })
    fields = []
  }
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!
    if (quoted) {
      if (ch === '"') {
        if (text[i + 1] === '"') {
          field += '"'
          i++
        } else quoted = false
      } else {
        if (ch === '\n') line++
        field += ch
      }
      continue
    }
    if (ch === '"') {
      if (field !== '' || wasQuoted) throw new CsvError(line, 'a quote inside an unquoted field')
      quoted = true
      wasQuoted = true
    } else if (ch === ',') endField()
    else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++
      endRecord()
      line++
      recordLine = line
    } else {
      if (wasQuoted) throw new CsvError(line, 'text after the closing quote of a field')
      field += ch
    }
  }
  if (quoted) throw new CsvError(recordLine, 'a quoted field is never closed')
  if (field !== '' || fields.length > 0 || wasQuoted) endRecord()
  return records
}
