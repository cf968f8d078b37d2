import { z } from 'zod'
import { billingRoutes } from '../../contract/billing-routes.js'
import type { OperationSpec, OperationTable } from '../../contract/operation.js'
import { ROUTES } from '../../contract/routes.js'
import type { CliOperation, FieldSpec, FieldType } from './types.js'

/*
 * Writes ./operations.ts: what the CLI needs of each operation's request (every path, query and body
 * field with its type, whether it is required, its enum, description and an example), read from the
 * zod schemas of the route table through their JSON Schema. The CLI's declaration path reads that file
 * and never the contract, so `rwa --help` loads no zod (docs/architecture.md, "The CLI from the route
 * table"). test/cli/spec.test.ts fails when the file is stale; with RWA_WRITE_CLI=1 it rewrites it.
 */

type JsonSchema = {
  type?: string
  properties?: Record<string, JsonSchema>
  required?: string[]
  items?: JsonSchema
  anyOf?: JsonSchema[]
  enum?: unknown[]
  const?: unknown
  format?: string
  description?: string
  default?: unknown
  minimum?: number
  maximum?: number
  exclusiveMinimum?: number
}

const jsonSchemaOf = (schema: z.ZodType): JsonSchema =>
  z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema

/** A schema without its `null` branch, and whether it had one. */
function withoutNull(schema: JsonSchema): { schema: JsonSchema; nullable: boolean } {
  const branches = schema.anyOf?.filter((b) => b.type !== 'null')
  if (!schema.anyOf || !branches || branches.length === schema.anyOf.length)
    return { schema, nullable: false }
  const [only] = branches
  const rest = { ...schema, anyOf: undefined }
  return {
    schema:
      branches.length === 1 && only ? { ...only, description: schema.description ?? only.description } : rest,
    nullable: true,
  }
}

const enumOf = (schema: JsonSchema): string[] | undefined =>
  schema.enum?.every((v) => typeof v === 'string') ? (schema.enum as string[]) : undefined

function typeOf(schema: JsonSchema): FieldType {
  if (schema.type === 'string' || schema.type === 'integer' || schema.type === 'number') return schema.type
  if (schema.type === 'boolean') return 'boolean'
  if (schema.type === 'array' && schema.items?.type === 'string') return 'list'
  return 'json'
}

/** A whole number's bounds, where they are worth saying (not the ±2^53 of every unit count). */
function boundsOf(schema: JsonSchema): { min?: number; max?: number } {
  const min =
    schema.minimum ?? (schema.exclusiveMinimum === undefined ? undefined : schema.exclusiveMinimum + 1)
  const max = schema.maximum
  return {
    ...(min !== undefined ? { min } : {}),
    ...(max !== undefined && max < Number.MAX_SAFE_INTEGER ? { max } : {}),
  }
}

/** A value as a command line gives it: `250`, `kyc,aml`, `{"SG":50}`. */
function asText(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined
  if (typeof value === 'string') return value
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value.join(',')
  return JSON.stringify(value)
}

function valueAt(value: unknown, path: string): unknown {
  let at = value
  for (const key of path.split('.')) {
    if (!at || typeof at !== 'object' || Array.isArray(at)) return undefined
    at = (at as Record<string, unknown>)[key]
  }
  return at
}

/** The fields of one part of a request, objects flattened to dotted paths. */
function fieldsOf(
  part: FieldSpec['in'],
  schema: JsonSchema,
  example: unknown,
  prefix = '',
  required = true,
): FieldSpec[] {
  const fields: FieldSpec[] = []
  for (const [key, property] of Object.entries(schema.properties ?? {})) {
    const name = `${prefix}${key}`
    const isRequired = required && (schema.required ?? []).includes(key)
    const { schema: inner, nullable } = withoutNull(property)
    if (inner.type === 'object' && inner.properties) {
      fields.push(...fieldsOf(part, inner, example, `${name}.`, isRequired))
      continue
    }
    const type = typeOf(inner)
    const values = type === 'list' ? enumOf(inner.items ?? {}) : enumOf(inner)
    const sample = type === 'json' ? undefined : (asText(valueAt(example, name)) ?? asText(inner.default))
    fields.push({
      name,
      in: part,
      type,
      required: isRequired,
      ...(inner.description ? { description: inner.description } : {}),
      ...(values ? { enum: values } : {}),
      ...(inner.format === 'date-time' ? { time: true as const } : {}),
      ...(type === 'integer' ? boundsOf(inner) : {}),
      ...(nullable ? { nullable: true as const } : {}),
      ...(type !== 'boolean' && asText(inner.default) ? { default: asText(inner.default) } : {}),
      ...(sample !== undefined ? { example: sample } : {}),
    })
  }
  return fields
}

/**
 * The fields of a body: of its schema, or, for a body that is one of several objects (`anyOf`), of the
 * first, followed by the other forms' fields as `alternative` (none of them required).
 */
function bodyFieldsOf(schema: JsonSchema, example: unknown): FieldSpec[] {
  const forms = schema.anyOf?.filter((b) => b.type === 'object')
  if (schema.properties || !forms || forms.length < 2) return fieldsOf('body', schema, example, '', true)
  const [first, ...others] = forms
  const fields = fieldsOf('body', first!, example, '', true)
  for (const form of others) {
    for (const field of fieldsOf('body', form, undefined, '', false)) {
      if (!fields.some((f) => f.name === field.name)) fields.push({ ...field, alternative: true })
    }
  }
  return fields
}

/** One operation as the CLI reads it. */
function cliOperationOf(operation: OperationSpec, table: CliOperation['table']): CliOperation {
  const fields = [
    ...(operation.params ? fieldsOf('path', jsonSchemaOf(operation.params), undefined) : []),
    ...(operation.query ? fieldsOf('query', jsonSchemaOf(operation.query), undefined) : []),
    ...(operation.body ? bodyFieldsOf(jsonSchemaOf(operation.body.schema), operation.body.example) : []),
  ]
  const query = new Set(fields.filter((f) => f.in === 'query').map((f) => f.name))
  return {
    table,
    method: operation.method,
    ...(operation.access === 'public' ? { public: true as const } : {}),
    summary: operation.summary,
    paged: query.has('limit') && query.has('cursor'),
    ...(operation.body
      ? { body: operation.body.required ? ('required' as const) : ('optional' as const) }
      : {}),
    fields,
  }
}

/**
 * Every operation of `routes`. A field whose own operation has no example of it takes the example of
 * a field of the same name elsewhere in the table (a list's `--jurisdiction` filter, the `US` of a body).
 */
export function cliSpecOf(routes: OperationTable = ROUTES): Record<string, CliOperation> {
  const billing = new Set(Object.keys(billingRoutes))
  const spec: Record<string, CliOperation> = {}
  for (const [id, operation] of Object.entries(routes))
    spec[id] = cliOperationOf(operation, billing.has(id) ? 'billing' : 'all')
  const examples = new Map<string, string>()
  for (const operation of Object.values(spec))
    for (const field of operation.fields)
      if (field.in === 'body' && field.example !== undefined && !examples.has(field.name))
        examples.set(field.name, field.example)
  for (const operation of Object.values(spec))
    for (const field of operation.fields) {
      const example = field.example ?? examples.get(field.name)
      if (example !== undefined && field.in !== 'path') field.example = example
    }
  return spec
}

const HEADER = `/*
 * GENERATED from the route tables (src/contract/*-routes.ts) by src/cli/spec/generate.ts: do not edit.
 * test/cli/spec.test.ts fails when it is stale; rewrite it with
 *   RWA_WRITE_CLI=1 npx vitest run --config test/vitest.config.ts --project sqlite test/cli/spec.test.ts
 */`

/** One operation as lines of a module: a line for the operation, a line a field. */
function linesOf(id: string, { fields, ...operation }: CliOperation): string {
  const head = JSON.stringify(operation).slice(1, -1)
  if (fields.length === 0) return `  ${id}: { ${head}, "fields": [] },`
  return [
    `  ${id}: { ${head}, "fields": [`,
    ...fields.map((f) => `    ${JSON.stringify(f)},`),
    '  ] },',
  ].join('\n')
}

/**
 * The files of ./: one module for the operations of each OpenAPI tag (`operations-governance.ts`), each
 * a line an operation and a line a field, and ./operations.ts gathering them; by file name.
 */
export function renderCliSpec(routes: OperationTable = ROUTES): Record<string, string> {
  const spec = cliSpecOf(routes)
  const byTag = new Map<string, string[]>()
  for (const [id, operation] of Object.entries(routes)) {
    const tag = operation.tags[0] ?? 'other'
    byTag.set(tag, [...(byTag.get(tag) ?? []), id])
  }
  const files: Record<string, string> = {}
  const names = [...byTag.keys()].map((tag) => ({
    tag,
    name: `${tag.replace(/\W+/g, '_').toUpperCase()}_OPERATIONS`,
  }))
  for (const { tag, name } of names) {
    const ids = byTag.get(tag)!
    files[`operations-${tag}.ts`] = `${HEADER}
import type { CliOperation } from './types.js'

export const ${name}: Readonly<Record<string, CliOperation>> = {
${ids.map((id) => linesOf(id, spec[id]!)).join('\n')}
}
`
  }
  files['operations.ts'] = `${HEADER}
import type { CliOperation } from './types.js'
${names.map(({ tag, name }) => `import { ${name} } from './operations-${tag}.js'`).join('\n')}

/** Every operation of the route table, by operationId. */
export const OPERATIONS: Readonly<Record<string, CliOperation>> = {
${names.map(({ name }) => `  ...${name},`).join('\n')}
}
`
  return files
}
