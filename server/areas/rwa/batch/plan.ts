import {
  BATCH_OPERATIONS,
  type BatchOperation,
  type BatchOperationName,
  OLD_REF_KEY,
  REF_KEY,
  REF_VALUE,
} from '../../../../src/contract/batch.js'
import type { FieldError } from '../../../../src/contract/errors.js'
import { printableText } from '../../../../src/contract/text.js'
import { invalidFields } from '../../../platform/errors.js'

/*
 * The plan of a batch (docs/batches.md, "Refs"), pure: each operation with the places of its body that take a value
 * an earlier operation answers (`{ "$result": "name.field" }`). A ref to an operation that is missing
 * or comes later, a ref named twice, a `$result` of another form, or the old `$ref` form is refused
 * before anything runs.
 */

/** A path into a body: keys of objects and indexes of arrays. */
export type BodyPath = ReadonlyArray<string | number>

/** A place of a body whose value is a field of an earlier operation's answer. */
export interface RefSite {
  path: BodyPath
  /** The ref of the operation whose answer holds the value. */
  ref: string
  /** The dotted path of the value in that answer. */
  field: readonly string[]
}

export interface PlannedOperation {
  index: number
  ref: string | null
  op: BatchOperationName
  operationId: string
  /** The body field naming the record the operation acts on (its path's `{id}`), if it has one. */
  idField: string | undefined
  body: Record<string, unknown>
  sites: RefSite[]
}

/** `operations[i].body.a.b`: how a field of an operation is named in a refusal. */
export const fieldOf = (index: number, path: BodyPath): string =>
  printableText([`operations[${index}].body`, ...path].join('.'))

/** The plan, or 400 `invalid_field` naming each `operations[i]` whose refs cannot be resolved. */
export function planBatch(operations: readonly BatchOperation[]): PlannedOperation[] {
  const errors: FieldError[] = []
  const defined = new Map<string, number>()
  operations.forEach((operation, index) => {
    if (operation.ref === undefined) return
    const first = defined.get(operation.ref)
    if (first === undefined) defined.set(operation.ref, index)
    else
      errors.push({
        path: `operations[${index}].ref`,
        message: `ref "${operation.ref}" is already the name of operations[${first}]`,
      })
  })

  const planned = operations.map((operation, index): PlannedOperation => {
    const sites: RefSite[] = []
    for (const { path, value, key } of refValues(operation.body)) {
      if (key === OLD_REF_KEY) {
        errors.push({
          path: fieldOf(index, path),
          message: `a reference to an earlier operation's answer is { "${REF_KEY}": "name.field" } now: { "${OLD_REF_KEY}": ... } is read as a JSON Reference by OpenAPI tools`,
        })
        continue
      }
      if (path.length === 0) {
        errors.push({
          path: fieldOf(index, path),
          message: `a body is an object of its own: a ${REF_KEY} may stand for a value of it, not for all of it`,
        })
        continue
      }
      const match = typeof value === 'string' ? REF_VALUE.exec(value) : null
      if (!match) {
        errors.push({
          path: fieldOf(index, path),
          message: `a ${REF_KEY} is { "${REF_KEY}": "name.field" }, alone in its object: name an earlier operation's ref and a field of its answer`,
        })
        continue
      }
      const [, ref, field] = match as unknown as [string, string, string]
      const at = defined.get(ref)
      if (at === undefined || at >= index) {
        errors.push({
          path: fieldOf(index, path),
          message:
            at === undefined
              ? `refers to ref "${ref}", which no operation of the batch has`
              : `refers to ref "${ref}" of operations[${at}], which runs after operations[${index}]: a ref can only name an earlier operation`,
        })
        continue
      }
      sites.push({ path, ref, field: field.split('.') })
    }
    const spec = BATCH_OPERATIONS[operation.op] as { operationId: string; idField?: string }
    return {
      index,
      ref: operation.ref ?? null,
      op: operation.op,
      operationId: spec.operationId,
      idField: spec.idField,
      body: operation.body,
      sites,
    }
  })
  if (errors.length > 0) throw invalidFields('body', errors)
  return planned
}

/**
 * Every `{ "$result": ... }` object in a body (and any object holding `$result` beside other keys), with
 * its path, and every object holding the old key `$ref` (`key` says which). A plain walk over one path stack, copied only where a ref is found: it runs over every value of
 * every operation of a batch, and a generator with a path array per value was 4 % of a batch
 * credential's allocations (docs/performance.md).
 */
function refValues(body: unknown): Array<{ path: BodyPath; value: unknown; key: string }> {
  const found: Array<{ path: BodyPath; value: unknown; key: string }> = []
  const path: Array<string | number> = []
  const visit = (value: unknown): void => {
    if (value === null || typeof value !== 'object') return
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        path.push(i)
        visit(value[i])
        path.pop()
      }
      return
    }
    const record = value as Record<string, unknown>
    for (const key of REF_KEYS) {
      if (!(key in record)) continue
      // Another key beside it makes it no reference: refused as malformed rather than passed on.
      found.push({ path: [...path], value: Object.keys(record).length === 1 ? record[key] : undefined, key })
      return
    }
    for (const key of Object.keys(record)) {
      path.push(key)
      visit(record[key])
      path.pop()
    }
  }
  visit(body)
  return found
}

const REF_KEYS = [REF_KEY, OLD_REF_KEY]

/** Whether `path` starts with `prefix` (or is it). */
const startsWith = (path: BodyPath, prefix: BodyPath): boolean =>
  prefix.length <= path.length && prefix.every((key, i) => path[i] === key)

/**
 * Whether a schema issue of a body may be its refs', to be judged once they are filled: an issue at or
 * inside a ref's place (the `{ "$result" }` object is not the value it stands for), or about an object or
 * array holding one (a union, a refinement over its fields) — but not an unknown key nor a length of
 * an array (or of an object's keys), which no value can change: those refuse the batch before anything
 * runs, as a body without refs is.
 */
export function awaitsRefs(issue: { path: BodyPath; code: string }, refPaths: readonly BodyPath[]): boolean {
  return refPaths.some(
    (ref) =>
      startsWith(issue.path, ref) ||
      (startsWith(ref, issue.path) && !VALUE_INDEPENDENT_ISSUES.has(issue.code)),
  )
}

/** Zod's issue codes that a value put in at a ref's place cannot cause nor cure above it. */
const VALUE_INDEPENDENT_ISSUES = new Set(['unrecognized_keys', 'too_big', 'too_small'])

/** The value at `field` of an answer (its own fields only), or undefined when the answer has none there. */
export function valueAt(answer: unknown, field: readonly string[]): unknown {
  let value = answer
  for (const key of field) {
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, key)) return undefined
    // An array's fields are its items: its `length` is no field of the answer's JSON.
    if (Array.isArray(value) && !/^\d+$/.test(key)) return undefined
    value = (value as Record<string, unknown>)[key]
  }
  return value
}

/**
 * A copy of `body` with each value at its path, copying only the objects and arrays along the paths,
 * each once: filling refs one at a time, each copying its path anew, cost a body of thousands of refs
 * in one array seconds (the array copied once per ref).
 */
export function withValuesAt(
  body: unknown,
  values: ReadonlyArray<{ path: BodyPath; value: unknown }>,
): unknown {
  const root: Record<string, unknown> = { body }
  const copies = new Set<unknown>()
  for (const { path, value } of values) {
    let parent: Record<string | number, unknown> = root
    let key: string | number = 'body'
    for (const next of path) {
      let child = parent[key]
      if (!copies.has(child)) {
        child = Array.isArray(child) ? [...child] : { ...(child as Record<string, unknown>) }
        copies.add(child)
        setOwn(parent, key, child)
      }
      parent = child as Record<string | number, unknown>
      key = next
    }
    setOwn(parent, key, value)
  }
  return root.body
}

/** `target[key] = value` as an own field, whatever the key (`__proto__` included). */
const setOwn = (target: object, key: string | number, value: unknown): void => {
  Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true })
}
