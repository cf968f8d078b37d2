import type { Context } from 'hono'
import {
  BATCH_OPERATIONS,
  type BatchOperationName,
  type BatchRequest,
  type BatchResult,
} from '../../../../src/contract/batch.js'
import type { FieldError, Problem } from '../../../../src/contract/errors.js'
import { type OperationSpec, rolesOf } from '../../../../src/contract/operation.js'
import { ROUTES, type Routes } from '../../../../src/contract/routes.js'
import { takeRequests } from '../../../pipeline/auth/authenticate.js'
import type { AppEnv, Principal } from '../../../pipeline/auth/principal.js'
import type { AppContext } from '../../../pipeline/context.js'
import { dialectOf } from '../../../platform/db/dialect.js'
import { withoutSavepoints } from '../../../platform/db/held-connection.js'
import { ApiError, fieldErrorsOf, invalidFields } from '../../../platform/errors.js'
import { concurrencyRefusalOf, problemOf } from '../../../platform/http/error-handler.js'
import { appendRecorded, appendRecordedAndForget } from '../../../pipeline/writes/run-write.js'
import { inSavepoint } from '../../../pipeline/writes/savepoint.js'
import { findToken } from '../tokens/queries.js'
import {
  awaitsRefs,
  type BodyPath,
  fieldOf,
  type PlannedOperation,
  planBatch,
  valueAt,
  withValuesAt,
} from './plan.js'

/*
 * A batch (docs/batches.md): every operation is the single operation it names, run by that operation's own
 * handler (the same service function its route calls) inside the batch's one write, so its rules, its
 * audit event and its answer are the single operation's. What the batch adds: refs between operations,
 * the checks before anything runs (roles, refs, schemas, limits), and all-or-nothing, each-alone or
 * dry-run around them.
 */

/** What an operation's handler is given, as the route binding gives it (server/routes.ts). */
export interface OperationInput {
  principal: Principal
  params: unknown
  query: undefined
  body: unknown
  c: Context<AppEnv>
}

/** Runs one operation of the route table by its handler; given by the table of contents. */
export type RunOperation = (
  ctx: AppContext,
  operationId: keyof Routes,
  input: OperationInput,
) => Promise<unknown>

/** An operation ready to run: its plan, its declaration, and its input when it needs no ref. */
interface Prepared extends PlannedOperation {
  operation: OperationSpec
  /** Parsed by its schemas; absent when refs fill some of it (parsed once they are). */
  input: { params: unknown; body: unknown } | undefined
}

export async function runBatch(
  ctx: AppContext,
  principal: Principal,
  request: BatchRequest,
  c: Context<AppEnv>,
  run: RunOperation,
): Promise<Response> {
  const count = request.operations.length
  assertRoles(principal, request)
  const plan = planBatch(request.operations)
  const prepared = prepare(plan)
  // The request counted one; each further operation counts one more, all admitted or none.
  await takeRequests(ctx, c, principal, count - 1, `A batch of ${count} operations counts ${count} requests`)
  if (prepared.some((p) => p.operationId === 'requestTransfer')) await ctx.signingKeys.prepareProofKey()
  await lockTokensInOrder(ctx, principal.orgId, prepared)

  const execute = (p: Prepared, answers: Map<string, unknown>) =>
    executeOne(ctx, principal, c, run, p, answers)
  // On SQLite a real batch of transfer requests appends its changes as it goes (`BatchResults`); a dry
  // run appends all at its end, inside the savepoint that undoes them.
  const appendAsItGoes =
    !request.dry_run &&
    dialectOf(ctx.db) === 'sqlite' &&
    request.operations.every((operation) => APPENDED_AS_IT_GOES.has(operation.op))
  const results = new BatchResults(ctx, appendAsItGoes)
  const runAll = async () => {
    await (request.atomic
      ? runAtomic(ctx, c, prepared, execute, results)
      : runEachAlone(ctx, c, prepared, execute, results))
    // Every change appended, each answer carries its log position (a transfer's log_index).
    await appendRecorded(ctx)
    return results.json(request.dry_run)
  }
  const json = request.dry_run ? await dryRun(ctx, runAll) : await runAll()
  return c.body(json, ROUTES.batch.response.status, { 'content-type': 'application/json' })
}

/** Results are made JSON text and their changes appended every this many operations (`BatchResults`). */
const OPERATIONS_PER_APPEND = 64

/**
 * The operations a batch made of them alone may append as it goes: each records one change, of the
 * record it makes, which no operation of such a batch changes again. The events of a record two
 * operations of a write change must be appended by one call, so that each carries the record as the
 * write leaves it (server/pipeline/events/outbox.ts): a submitted attestation its batch then revokes.
 */
const APPENDED_AS_IT_GOES: ReadonlySet<BatchOperationName> = new Set<BatchOperationName>(['transfers.request'])

/**
 * The batch's results, as the answer's JSON text once they are final. A write appends its changes to
 * the log at its end, and an answer is final only then (a transfer's `log_index`); kept until then, a
 * thousand operations' changes and answers outlived several of the garbage collector's young
 * collections, which copied them each time (docs/performance.md, "Twelfth pass: the batch's garbage").
 * So on SQLite, whose one connection runs one write at a time, a batch of `APPENDED_AS_IT_GOES`
 * operations (`appendAsItGoes`) appends and forgets its changes every `OPERATIONS_PER_APPEND`
 * operations, and makes those results text: the same log positions, in the same order, as one append
 * at the end. Not on PostgreSQL, where the log row must be the last row a write locks
 * (server/pipeline/writes/run-write.ts, `appendRecorded`).
 */
class BatchResults {
  private readonly texts: string[] = []
  private pending: BatchResult[] = []

  constructor(
    private readonly ctx: AppContext,
    private readonly appendAsItGoes: boolean,
  ) {}

  /** Adds an operation's result; between two operations, where the batch holds no savepoint of its own. */
  async add(result: BatchResult): Promise<void> {
    this.pending.push(result)
    if (this.appendAsItGoes && this.pending.length === OPERATIONS_PER_APPEND) {
      await appendRecordedAndForget(this.ctx)
      this.settle()
    }
  }

  /** The answer's text (`BatchResponse`), once every change is appended. */
  json(dryRun: boolean): string {
    this.settle()
    return `{"results":[${this.texts.join(',')}],"dry_run":${dryRun}}`
  }

  private settle(): void {
    for (const result of this.pending) this.texts.push(JSON.stringify(result))
    this.pending = []
  }
}

/** 403 naming the first operation whose role the key lacks, before anything runs. */
function assertRoles(principal: Principal, request: BatchRequest): void {
  const checked = new Map<string, readonly string[] | null>()
  request.operations.forEach((operation, index) => {
    let allowed = checked.get(operation.op)
    if (allowed === undefined) {
      const spec = ROUTES[operationIdOf(operation.op)] as OperationSpec
      const roles = rolesOf(spec)
      allowed = principal.roles.some((role) => roles.includes(role)) ? null : roles
      checked.set(operation.op, allowed)
    }
    if (allowed === null) return
    throw new ApiError(
      'role_required',
      `operations[${index}] (${operation.op}) needs a key with the role ${allowed.join(' or ')}; this key has ${principal.roles.join(', ') || 'no role'}`,
      { context: { roles: allowed, key_roles: principal.roles, index, op: operation.op } },
    )
  })
}

const operationIdOf = (op: BatchOperationName): keyof Routes => BATCH_OPERATIONS[op].operationId

/**
 * Validates each operation by its own operation's schemas (its path's id from the body's `idField`),
 * leaving out the places refs fill: 400 naming every failing `operations[i].body.field` before anything
 * runs. An operation without refs keeps what its schemas parsed.
 */
function prepare(plan: PlannedOperation[]): Prepared[] {
  const errors: FieldError[] = []
  const prepared = plan.map((p): Prepared => {
    const operation = ROUTES[p.operationId as keyof Routes] as OperationSpec
    const parsed = parseInput(operation, p, p.body)
    const refPaths = p.sites.map((site) => site.path)
    const issues = parsed.issues.filter((issue) => !awaitsRefs(issue, refPaths))
    errors.push(...issues.flatMap((issue) => issue.errors))
    return { ...p, operation, input: p.sites.length === 0 && parsed.input ? parsed.input : undefined }
  })
  if (errors.length > 0) throw invalidFields('body', errors)
  return prepared
}

interface ParsedInput {
  input: { params: unknown; body: unknown } | undefined
  /** Each schema issue: where, zod's code, and the refusal it makes. */
  issues: Array<{ path: BodyPath; code: string; errors: FieldError[] }>
}

/** An operation's body split into its path's id and its request body, each parsed by its schema. */
function parseInput(
  operation: OperationSpec,
  p: PlannedOperation,
  body: Record<string, unknown>,
): ParsedInput {
  const issues: ParsedInput['issues'] = []
  let rest = body
  let params: unknown
  if (p.idField !== undefined && operation.params) {
    const { [p.idField]: id, ...others } = body
    rest = others
    const result = operation.params.safeParse({ id })
    if (result.success) params = result.data
    else
      for (const issue of result.error.issues) {
        const path = [p.idField, ...issue.path.slice(1)] as BodyPath
        issues.push({
          path,
          code: issue.code,
          errors: [{ path: fieldOf(p.index, path), message: issue.message }],
        })
      }
  }
  let parsedBody: unknown = rest
  if (operation.body) {
    const result = operation.body.schema.safeParse(rest)
    if (result.success) parsedBody = result.data
    else
      for (const issue of result.error.issues) {
        const errors = fieldErrorsOf([issue], '').map((e) => ({
          path: e.path === '' ? `operations[${p.index}].body` : `operations[${p.index}].body.${e.path}`,
          message: e.message,
        }))
        issues.push({ path: issue.path as BodyPath, code: issue.code, errors })
      }
  }
  return { input: issues.length === 0 ? { params, body: parsedBody } : undefined, issues }
}

/** One operation with its refs filled in from the answers so far, run by its handler. */
async function executeOne(
  ctx: AppContext,
  principal: Principal,
  c: Context<AppEnv>,
  run: RunOperation,
  p: Prepared,
  answers: Map<string, unknown>,
): Promise<{ status: number; body: unknown }> {
  let input = p.input
  if (input === undefined) {
    const values = p.sites.map((site) => {
      const unresolved = (message: string) =>
        invalidFields('body', [{ path: fieldOf(p.index, site.path), message }])
      if (!answers.has(site.ref))
        throw unresolved(`refers to ref "${site.ref}", whose operation failed: it answered nothing to use`)
      const value = valueAt(answers.get(site.ref), site.field)
      if (value === undefined)
        throw unresolved(
          `refers to ${site.field.join('.')} of ref "${site.ref}", which its answer does not have`,
        )
      return { path: site.path, value }
    })
    const body = withValuesAt(p.body, values)
    const parsed = parseInput(p.operation, p, body as Record<string, unknown>)
    if (!parsed.input)
      throw invalidFields(
        'body',
        parsed.issues.flatMap((issue) => issue.errors),
      )
    input = parsed.input
  }
  const answer = await run(ctx, p.operationId as keyof Routes, {
    principal,
    params: input.params,
    query: undefined,
    body: input.body,
    c,
  })
  if (answer instanceof Response) return { status: answer.status, body: await answer.json() }
  return { status: p.operation.response.status, body: answer }
}

type Execute = (p: Prepared, answers: Map<string, unknown>) => Promise<{ status: number; body: unknown }>

/**
 * All or nothing: the first failure throws 422 `batch_operation_failed`, and the write rolls back. So
 * on SQLite the operations' services run without savepoints of their own (`withoutSavepoints`): what
 * a failed operation wrote goes with the rest of the write. On PostgreSQL a failed statement aborts
 * the transaction, and a service that explains a refused statement reads after it: each keeps its
 * savepoint there.
 */
async function runAtomic(
  ctx: AppContext,
  c: Context<AppEnv>,
  prepared: Prepared[],
  execute: Execute,
  results: BatchResults,
): Promise<void> {
  const inTurn = () => runEachInTurn(c, prepared, execute, results)
  return dialectOf(ctx.db) === 'sqlite' ? withoutSavepoints(inTurn) : inTurn()
}

/** The operations in order, the first failure thrown as the batch's (`runAtomic`). */
async function runEachInTurn(
  c: Context<AppEnv>,
  prepared: Prepared[],
  execute: Execute,
  results: BatchResults,
): Promise<void> {
  const answers = new Map<string, unknown>()
  for (const p of prepared) {
    let outcome: { status: number; body: unknown }
    try {
      outcome = await execute(p, answers)
    } catch (error) {
      const refusal = refusalOf(error)
      const named = p.ref === null ? '' : ` ref "${p.ref}"`
      throw new ApiError(
        'batch_operation_failed',
        `operations[${p.index}] (${p.op}${named}) failed, so nothing of the batch was kept: ${refusal.detail}`,
        {
          context: { index: p.index, ref: p.ref, op: p.op },
          operationProblem: problemOf(c, refusal),
        },
      )
    }
    if (p.ref !== null) answers.set(p.ref, referable(outcome.body))
    await results.add({ index: p.index, ref: p.ref, op: p.op, ...outcome })
  }
}

/** Each operation alone: a savepoint each, a failure its result (a problem) and nothing else's. */
async function runEachAlone(
  ctx: AppContext,
  c: Context<AppEnv>,
  prepared: Prepared[],
  execute: Execute,
  results: BatchResults,
): Promise<void> {
  const answers = new Map<string, unknown>()
  for (const p of prepared) {
    let outcome: { status: number; body: unknown }
    try {
      outcome = await inSavepoint(ctx, () => execute(p, answers))
      if (p.ref !== null) answers.set(p.ref, referable(outcome.body))
    } catch (error) {
      const problem: Problem = problemOf(c, refusalOf(error))
      outcome = { status: problem.status, body: problem }
    }
    await results.add({ index: p.index, ref: p.ref, op: p.op, ...outcome })
  }
}

/**
 * An answer as later operations' refs read it: as its operation answered it, without what the append of
 * its changes adds to it later (a transfer's `log_index`), whether that append comes at the batch's end or
 * after some of its operations (`BatchResults`).
 */
const referable = (body: unknown): unknown =>
  body !== null && typeof body === 'object' && !Array.isArray(body) ? { ...body } : body

/** Thrown at the end of a dry run to roll it back, carrying what it answered. */
class DryRunDone extends Error {
  constructor(readonly json: string) {
    super('dry run done')
  }
}

/**
 * Runs the batch for real in a savepoint and rolls it back, with its audit events and invalidations.
 * `runAll` appends its audit events to the log before the rollback, as a real batch's are before its
 * answer is made, so the answers name the log positions the batch really had (a transfer's log_index).
 */
async function dryRun(ctx: AppContext, runAll: () => Promise<string>): Promise<string> {
  try {
    await inSavepoint(ctx, async () => {
      throw new DryRunDone(await runAll())
    })
  } catch (error) {
    if (error instanceof DryRunDone) return error.json
    throw error
  }
  throw new Error('unreachable: a dry run always rolls back')
}

/**
 * The refusal an operation's failure is: its own ApiError, or the 409 a database's unique or
 * foreign-key violation means. Anything else (a bug, a lost database) fails the whole request.
 */
function refusalOf(error: unknown): ApiError {
  if (error instanceof ApiError) return error
  const refusal = concurrencyRefusalOf(error)
  if (refusal) return refusal
  throw error
}

/**
 * Locks the tokens the batch names itself, in one order, before its operations lock them one by one:
 * two batches moving units of the same tokens in different orders would otherwise deadlock on
 * PostgreSQL (each holding a token the other waits for). Nothing on SQLite.
 */
async function lockTokensInOrder(ctx: AppContext, orgId: string, prepared: Prepared[]): Promise<void> {
  const ids = new Set<string>()
  for (const p of prepared) {
    const input = p.input as { params?: { id?: unknown }; body?: { token_id?: unknown } } | undefined
    const id = p.operationId === 'requestTransfer' ? input?.body?.token_id : input?.params?.id
    if (typeof id === 'string' && id.startsWith('tok_')) ids.add(id)
  }
  if (ids.size < 2 || dialectOf(ctx.db) === 'sqlite') return
  for (const id of [...ids].sort()) await findToken(ctx.db, orgId, id, 'update')
}
