import { ApiProblemError } from '../../client/errors.js'
import type { RwaClient } from '../../client/index.js'
import type { BatchResponse } from '../../contract/batch.js'
import type { Change, ChangeAction, ManifestOperation, Plan, Refs } from './plan.js'

/*
 * A plan (./plan.ts) made as one atomic batch (docs/batches.md): every change's operations in order, the
 * later ones naming what the earlier ones create by `$result`, all of them or, when one fails, none.
 */

/**
 * The plan as one batch (docs/cli.md, "apply: scripted registrations"): every change's operations in order,
 * each named `s<step>_<k>` so that later ones refer to what earlier ones create, and for each operation the
 * change it belongs to.
 */
export function batchOfPlan(plan: Plan): {
  operations: Array<ManifestOperation & { ref: string }>
  stepOf: number[]
} {
  const operations: Array<ManifestOperation & { ref: string }> = []
  const stepOf: number[] = []
  const issuedAt = new Map<string, number>()
  plan.forEach((step, i) => {
    if (step.ref && step.ops) issuedAt.set(step.ref, i)
  })
  const credentialIdOf = new Map(plan.filter((s) => s.ref && s.id).map((s) => [s.ref as string, s.id]))
  plan.forEach((step, i) => {
    if (!step.ops) return
    const refs: Refs = {
      credential: (ref) => {
        const issued = issuedAt.get(ref)
        return issued === undefined ? credentialIdOf.get(ref) : { $result: `s${issued}_0.credential_id` }
      },
      own: (k, field) => ({ $result: `s${i}_${k}.${field}` }),
    }
    step.ops(refs).forEach((operation, k) => {
      operations.push({ ref: `s${i}_${k}`, ...operation })
      stepOf.push(i)
    })
  })
  return { operations, stepOf }
}

/** Sends a batch: the generated client's call, or a test's. */
export type SendBatch = (body: {
  operations: Array<ManifestOperation & { ref: string }>
  atomic: true
  dry_run: boolean
}) => Promise<BatchResponse>

/** Sends a batch through the client (`POST /console/rwa/batch`). */
export const batchSender =
  (rwa: RwaClient): SendBatch =>
  async (body) =>
    (await rwa.governance.batch({ body })).data

/**
 * Makes the planned changes as one atomic batch: all of them or, when one fails, none, the failure
 * naming its manifest entry (`trust[0] (US -> SG): ...`) with the operation's own refusal (its exit code
 * and hint). With `dryRun`, the server runs it all and keeps nothing. Returns the changes with the ids
 * of what was created.
 */
export async function executePlan(plan: Plan, send: SendBatch, dryRun = false): Promise<Change[]> {
  const { operations, stepOf } = batchOfPlan(plan)
  const changes: Change[] = plan.map(
    ({ ops: _ops, ref: _ref, idFrom: _idFrom, entry: _entry, ...change }) => ({
      ...change,
    }),
  )
  if (operations.length === 0) return changes
  let answer: BatchResponse
  try {
    answer = await send({ operations, atomic: true, dry_run: dryRun })
  } catch (error) {
    throw failedEntry(error, plan, stepOf)
  }
  for (const result of answer.results) {
    const i = stepOf[result.index]!
    const idFrom = plan[i]!.idFrom
    const first = stepOf.indexOf(i)
    if (!dryRun && idFrom && result.index - first === idFrom.op) {
      const id = (result.body as Record<string, unknown> | null)?.[idFrom.field]
      if (typeof id === 'string') changes[i]!.id = id
    }
  }
  return changes
}

/** A failed atomic batch as the refusal of the manifest entry whose operation failed. */
function failedEntry(error: unknown, plan: Plan, stepOf: number[]): unknown {
  if (!(error instanceof ApiProblemError) || error.reason !== 'batch_operation_failed') return error
  const index = error.context.index
  const inner = error.problem.operation_problem
  if (typeof index !== 'number' || !inner) return error
  const step = plan[stepOf[index]!]
  if (!step) return error
  const problem = {
    ...inner,
    detail: `${step.entry} (${step.kind} ${step.name}): ${inner.detail}; nothing was applied`,
  }
  return new ApiProblemError(problem, error.retryAfterSeconds, error.requestId)
}

/** Counts of a plan by action. */
export function summarize(changes: readonly Change[]): Record<ChangeAction, number> {
  const counts: Record<ChangeAction, number> = { create: 0, update: 0, replace: 0, unchanged: 0, revoked: 0 }
  for (const c of changes) counts[c.action]++
  return counts
}
