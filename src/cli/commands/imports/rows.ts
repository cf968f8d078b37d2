import { isUtf8 } from 'node:buffer'
import { readFile } from 'node:fs/promises'
import type { BatchOperationName } from '../../../contract/batch.js'
import { CsvError, parseCsv } from '../../csv.js'
import { EXIT, ExitError } from '../../exit-error.js'
import { unreadable } from '../../input.js'

/*
 * The CSV file of an import (docs/batches.md, "Imports from CSV"): UTF-8 text whose header row names the
 * fields of the request body (`property_data.title_deed`, or for credentials the bare property fields),
 * each row the body of one operation of the batch. Its columns are checked against the operation's
 * request schema before anything is sent.
 */

export type ImportKind = 'credentials' | 'attestations' | 'transfers' | 'identities'

export const OPERATION: Record<ImportKind, BatchOperationName> = {
  credentials: 'credentials.issue',
  attestations: 'attestations.submit',
  transfers: 'transfers.request',
  identities: 'identities.create',
}

/** Fields that are numbers in the request body (a CSV cell is text). */
const NUMBERS: Record<ImportKind, readonly string[]> = {
  credentials: ['property_data.value_usd'],
  attestations: [],
  transfers: ['amount'],
  identities: [],
}

/** Fields that are lists in the request body: a cell holds its entries separated by `;` or spaces. */
const LISTS: Record<ImportKind, readonly string[]> = {
  credentials: [],
  attestations: [],
  transfers: [],
  identities: ['dids'],
}

/** A credential's property fields may be columns of their own, without the `property_data.` prefix. */
const PROPERTY_FIELDS = new Set(['address', 'type', 'value_usd', 'title_deed'])

/** The request body of one row: dotted header names nest, empty cells are left out. */
export function bodyOfRow(kind: ImportKind, values: Record<string, string>): Record<string, unknown> {
  const body: Record<string, unknown> = {}
  for (const [name, raw] of Object.entries(values)) {
    if (raw === '') continue
    const path =
      kind === 'credentials' && PROPERTY_FIELDS.has(name) ? ['property_data', name] : name.split('.')
    const numeric = NUMBERS[kind].includes(path.join('.')) && /^-?\d+(\.\d+)?$/.test(raw.trim())
    let at = body
    for (const key of path.slice(0, -1)) {
      if (typeof at[key] !== 'object' || at[key] === null) at[key] = {}
      at = at[key] as Record<string, unknown>
    }
    const list = LISTS[kind].includes(path.join('.'))
    at[path[path.length - 1]!] = numeric
      ? Number(raw.trim())
      : list
        ? raw.split(/[;\s]+/).filter((entry) => entry !== '')
        : raw
  }
  return body
}

/** The file as text; exit 2 for a file that cannot be read or is not UTF-8 (a spreadsheet's "CSV" may be Latin-1). */
async function readUtf8(file: string): Promise<string> {
  let bytes: Buffer
  try {
    bytes = await readFile(file)
  } catch (error) {
    throw unreadable(file, error)
  }
  if (isUtf8(bytes)) return bytes.toString('utf8')
  const at = firstNonUtf8(bytes)
  // Lines as the CSV counts them: a record ends at CRLF, LF or a lone CR (old Mac exports).
  let line = 1
  for (let i = 0; i < at; i++) if (bytes[i] === 0x0a || (bytes[i] === 0x0d && bytes[i + 1] !== 0x0a)) line++
  throw new ExitError(
    EXIT.usage,
    `${file} is not UTF-8 text (line ${line} holds a byte that is not)`,
    'save it as UTF-8 (a spreadsheet\'s "CSV UTF-8"), or convert it: iconv -f LATIN1 -t UTF-8',
  )
}

/** The offset of the first byte that does not belong to a well-formed UTF-8 sequence (RFC 3629). */
export function firstNonUtf8(bytes: Uint8Array): number {
  let i = 0
  while (i < bytes.length) {
    const lead = bytes[i]!
    if (lead < 0x80) {
      i++
      continue
    }
    const length =
      lead >= 0xc2 && lead <= 0xdf
        ? 2
        : lead >= 0xe0 && lead <= 0xef
          ? 3
          : lead >= 0xf0 && lead <= 0xf4
            ? 4
            : 0
    if (length === 0 || i + length > bytes.length) return i
    // The second byte's range narrows after E0, ED, F0 and F4 (no overlong forms, surrogates, or code
    // points past U+10FFFF).
    const second = bytes[i + 1]!
    const low = lead === 0xe0 ? 0xa0 : lead === 0xf0 ? 0x90 : 0x80
    const high = lead === 0xed ? 0x9f : lead === 0xf4 ? 0x8f : 0xbf
    if (second < low || second > high) return i
    for (let k = 2; k < length; k++) if ((bytes[i + k]! & 0xc0) !== 0x80) return i
    i += length
  }
  return bytes.length
}

/**
 * Exit 2 naming the columns the operation has no field for, before anything is sent: otherwise every
 * row of the file would be refused for them, a batch at a time. Read from the operation's own request
 * schema (src/contract/rwa.ts, the server's), so the CLI keeps no list of its own; the rows' values are
 * checked by the server, row by row.
 */
async function checkColumns(
  kind: ImportKind,
  file: string,
  header: readonly string[],
  rows: ReadonlyArray<{ values: Record<string, string> }>,
): Promise<void> {
  // Only columns with a value somewhere: an empty cell is left out of its row's body, so a column
  // empty in every row (a spreadsheet's unused "notes") reaches the server in none.
  const filled = header.filter((name) => rows.some((row) => row.values[name] !== ''))
  const { issueCredentialRequestSchema, submitAttestationRequestSchema, requestTransferRequestSchema } =
    await import('../../../contract/rwa.js')
  const { createIdentityRequestSchema } = await import('../../../contract/identities.js')
  const schema = {
    credentials: issueCredentialRequestSchema,
    attestations: submitAttestationRequestSchema,
    transfers: requestTransferRequestSchema,
    identities: createIdentityRequestSchema,
  }[kind]
  // A body with every such column filled: only the fields the schema does not know are looked at.
  const parsed = schema.safeParse(bodyOfRow(kind, Object.fromEntries(filled.map((name) => [name, 'x']))))
  const unknown = parsed.success
    ? []
    : parsed.error.issues.flatMap((issue) =>
        issue.code === 'unrecognized_keys' ? issue.keys.map((key) => [...issue.path, key].join('.')) : [],
      )
  if (unknown.length === 0) return
  // A column is refused when the field it fills is, or lies inside, one the schema does not know
  // (`a.b` makes an unknown field `a`).
  const columns = filled.filter((name) => {
    const field = kind === 'credentials' && PROPERTY_FIELDS.has(name) ? `property_data.${name}` : name
    return unknown.some((u) => field === u || field.startsWith(`${u}.`))
  })
  const named = columns.length > 0 ? columns : unknown
  throw new ExitError(
    EXIT.usage,
    `${file}: ${named.length === 1 ? 'the column' : 'the columns'} ${named.join(', ')} ${named.length === 1 ? 'is not a field' : 'are not fields'} of ${OPERATION[kind]}; nothing was sent`,
    `the first line names the fields: see \`rwa ${kind} import --help\``,
  )
}

/** The rows of the CSV file at `file` and its text; exit 2 for a file that is not UTF-8 or not CSV. */
export async function readRows(kind: ImportKind, file: string): Promise<{ text: string; rows: Row[] }> {
  const text = await readUtf8(file)
  let parsed: ReturnType<typeof parseCsv>
  try {
    parsed = parseCsv(text)
  } catch (error) {
    if (error instanceof CsvError) throw new ExitError(EXIT.usage, `${file} is not CSV: ${error.message}`)
    throw error
  }
  await checkColumns(kind, file, parsed.header, parsed.rows)
  return { text, rows: parsed.rows }
}

/** One row of the file: its line and its cells by column. */
export type Row = { line: number; values: Record<string, string> }
