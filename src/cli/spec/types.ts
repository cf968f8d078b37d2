/*
 * What the CLI knows of each operation of the route table, as plain data: written by ./generate.ts from
 * the contract's zod schemas into ./operations.ts, and read by the declaration of the commands, which
 * must load neither zod nor the contract (`rwa --help` stays cheap; docs/performance.md, "CLI cold
 * start").
 */

/**
 * How a field's value is written on a command line: text, a whole number, a number, a switch, a list
 * (comma-separated or the flag repeated), or anything else (an object, a union), which only `--file`
 * or a parser of the command's own gives.
 */
export type FieldType = 'string' | 'integer' | 'number' | 'boolean' | 'list' | 'json'

/** One field of an operation's request: a path parameter, a query parameter or a body field. */
export interface FieldSpec {
  /** Its dotted path within its part: `amount`, `property_data.value_usd`. */
  name: string
  in: 'path' | 'query' | 'body'
  type: FieldType
  /** The request is refused without it (for a nested field: its object is required too). */
  required: boolean
  /** The schema's `.describe()`. */
  description?: string
  /** The values it takes (a list's items for a list). */
  enum?: readonly string[]
  /** An instant, ISO 8601. */
  time?: true
  /** A number's bounds. */
  min?: number
  max?: number
  /** `null` clears it. */
  nullable?: true
  /** What the server takes when it is left out. */
  default?: string
  /** A value of the expected form, from the declaration's request example (or the schema's default). */
  example?: string
  /**
   * A field of the body's other form (a body that is one of two objects): given, it is sent alone, and
   * the first form's required fields are not asked for.
   */
  alternative?: true
}

/** One operation, as the CLI reads it. */
export interface CliOperation {
  /** The route table that declares it: `billing` (billing-routes.ts), or any other (routes.ts). */
  table: 'billing' | 'all'
  method: 'get' | 'post' | 'put' | 'patch' | 'delete'
  /** Anyone may call it: no API key is needed. */
  public?: true
  summary: string
  /** A list of pages: its query takes `limit` and `cursor`. */
  paged: boolean
  /** It takes a JSON body, which may be left out (`optional`). */
  body?: 'required' | 'optional'
  fields: readonly FieldSpec[]
}
