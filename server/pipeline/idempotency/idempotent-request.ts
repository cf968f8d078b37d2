import { createHash } from 'node:crypto'
import type { Context, MiddlewareHandler } from 'hono'
import type { ContentfulStatusCode } from 'hono/utils/http-status'
import { IDEMPOTENCY_HEADER, type OperationSpec, REPLAYED_HEADER } from '../../../src/contract/operation.js'
import type { AppEnv } from '../auth/principal.js'
import { isoTimestamp } from '../../platform/clock.js'
import type { AppContext } from '../context.js'
import type { Executor } from '../../platform/db/queries.js'
import { ApiError, invalidFields } from '../../platform/errors.js'
import {
  claimKey,
  deleteExpiredKeys,
  findKey,
  type IdempotencyRow,
  type IdempotentRequest,
  releaseKey,
  storeAnswer,
  takeOverKey,
} from './queries.js'

/*
 * `Idempotency-Key` on every keyed POST (docs/accountability.md, "Retrying a write safely"; after Stripe's):
 * the key is claimed per organization for 24 h before the request runs (committed at once, so every instance
 * sees it); the answer is stored with it, a success inside the write's own transaction (server/routes.ts), a
 * refusal once answered. The same key again: the same method, path and body replay the stored answer byte for
 * byte with `Idempotent-Replayed: true`; another body is 422 `idempotency_key_reused`; a request still
 * running is 409 `idempotency_key_in_progress`. A 5xx, 401, 403 or 429 releases the claim, so the retry runs
 * (`releases`); a claim left
 * in flight for a minute (its instance died) may be taken over.
 */

const KEY_LIFETIME_MS = 24 * 3_600_000
/**
 * How often an instance forgets an organization's expired keys. Sweeping on every claim put a DELETE on
 * the hot path of every keyed POST; once in this long keeps the table at about a day of keys (plus up
 * to this much), and a key sent again after its 24 h is forgotten on the spot by the claim itself.
 */
const SWEEP_EVERY_MS = 10 * 60_000
/** Organizations remembered per instance before the memory of their sweeps starts over. */
const MAX_SWEPT_ORGS = 10_000
const TAKE_OVER_AFTER_MS = 60_000
const KEY_FORM = /^[\x21-\x7e]{1,255}$/

/** The key a request claimed, set on the context for the binding to store the answer in its write. */
export interface IdempotencyClaim {
  orgId: string
  key: string
  /** Fields of the body stored as null (a raw key). */
  secretFields: readonly string[]
  /** When this request's claim was made (or taken over): the answer is stored only while it is its own. */
  claimedAt: string
  stored: boolean
}

declare module 'hono' {
  interface ContextVariableMap {
    idempotency: IdempotencyClaim | undefined
  }
}

/** The middleware of an operation that takes an Idempotency-Key (after authentication). */
export function idempotentRequest(ctx: AppContext, operation: OperationSpec): MiddlewareHandler<AppEnv> {
  const secretFields = operation.secretFields ?? []
  return async function idempotent(c, next) {
    const key = c.req.header(IDEMPOTENCY_HEADER)
    if (key === undefined) return next()
    if (!KEY_FORM.test(key)) {
      throw invalidFields('header', [
        { path: IDEMPOTENCY_HEADER, message: 'expected 1–255 printable ASCII characters, e.g. a UUID' },
      ])
    }
    const orgId = c.get('principal').orgId
    const request: IdempotentRequest = {
      method: c.req.method,
      path: c.req.path,
      body_hash: createHash('sha256')
        .update(await c.req.text())
        .digest('hex'),
    }
    const claimedOrEarlier = await claim(ctx, orgId, key, request)
    if (typeof claimedOrEarlier !== 'string') return replay(c, claimedOrEarlier)

    const claimedAt = claimedOrEarlier
    const claimed: IdempotencyClaim = { orgId, key, secretFields, claimedAt, stored: false }
    c.set('idempotency', claimed)
    try {
      await next()
    } catch (error) {
      await releaseKey(ctx.db, orgId, key, claimedAt)
      throw error
    }
    const status = c.res.status
    // Checked before `stored`: a write that stored its answer and then failed to commit (answered 5xx,
    // the error handled inside the chain) rolled the answer back with it, leaving the claim in flight.
    // releaseKey frees only a claim still in flight, never a committed answer.
    if (releases(status)) await releaseKey(ctx.db, orgId, key, claimedAt)
    else if (!claimed.stored)
      await storeAnswer(ctx.db, orgId, key, claimedAt, await answerOf(c.res, secretFields))
  }
}

/**
 * Answers that free the key instead of being stored: a 5xx (the retry should run), and the refusals
 * about who asks or when rather than about what is asked — 401, 403 (the key's roles, the plan, a
 * quota, another organization's record), 429 (the limits). Stored, a batch refused for one key's roles
 * (checked per operation, after the claim) would be replayed for 24 h to the key that has them; a
 * refused request wrote nothing, so running it again is safe. As Stripe, which stores a result only
 * once the request has started to run. An answer stored inside its write (an approval's, whatever it
 * is) stays: releasing frees only a claim still in flight.
 */
const releases = (status: number): boolean =>
  status >= 500 || status === 429 || status === 401 || status === 403

/**
 * Claims the key for this request (answering the claim's time); or, when the organization holds it
 * already, the stored answer to replay, or the refusal the state of the key calls for.
 */
async function claim(
  ctx: AppContext,
  orgId: string,
  key: string,
  request: IdempotentRequest,
): Promise<IdempotencyRow | string> {
  const nowMs = ctx.clock.now()
  const now = isoTimestamp(nowMs)
  const expiresAt = isoTimestamp(nowMs + KEY_LIFETIME_MS)
  if (sweepDue(ctx, orgId, nowMs)) await deleteExpiredKeys(ctx.db, orgId, now)
  for (let attempt = 0; attempt < 3; attempt++) {
    if (await claimKey(ctx.db, orgId, key, request, now, expiresAt)) return now
    const row = await findKey(ctx.db, orgId, key)
    if (!row) continue // released meanwhile: claim again
    if (row.expires_at <= now) {
      await deleteExpiredKeys(ctx.db, orgId, now)
      continue
    }
    if (row.method !== request.method || row.path !== request.path || row.body_hash !== request.body_hash) {
      throw new ApiError(
        'idempotency_key_reused',
        `Idempotency-Key ${key} was sent with another request (${row.method} ${row.path} and its body) at ${row.created_at}; use a new key for a new request`,
        { context: { idempotency_key: key, method: row.method, path: row.path } },
      )
    }
    if (row.state === 'done') return row
    const stale = Date.parse(row.created_at) + TAKE_OVER_AFTER_MS <= nowMs
    if (stale && (await takeOverKey(ctx.db, orgId, key, row.created_at, now))) return now
    throw new ApiError(
      'idempotency_key_in_progress',
      `A request with Idempotency-Key ${key} is still running; retry once it has answered`,
      { context: { idempotency_key: key }, headers: { 'Retry-After': '1' } },
    )
  }
  throw new Error(`Idempotency-Key ${key} could not be claimed`)
}

/** When each organization's expired keys are next swept, per app (an instance's own memory). */
const nextSweeps = new WeakMap<AppContext, Map<string, number>>()

/** Whether this claim sweeps the organization's expired keys: the first one, then once per interval. */
function sweepDue(ctx: AppContext, orgId: string, nowMs: number): boolean {
  let next = nextSweeps.get(ctx)
  if (!next || next.size >= MAX_SWEPT_ORGS) {
    next = new Map()
    nextSweeps.set(ctx, next)
  }
  if ((next.get(orgId) ?? Number.NEGATIVE_INFINITY) > nowMs) return false
  next.set(orgId, nowMs + SWEEP_EVERY_MS)
  return true
}

/** The stored answer, through the context so it carries the headers every answer of this request does. */
function replay(c: Context<AppEnv>, row: IdempotencyRow): Response {
  const headers = {
    ...(JSON.parse(row.headers ?? '{}') as Record<string, string>),
    [REPLAYED_HEADER]: 'true',
  }
  return c.body(row.body ?? '', (row.status ?? 200) as ContentfulStatusCode, headers)
}

/** What is stored of an answer: its status, content type and body, secret fields as null. */
async function answerOf(response: Response, secretFields: readonly string[]) {
  let body = await response.clone().text()
  if (secretFields.length > 0 && response.status < 300) {
    const parsed = JSON.parse(body) as Record<string, unknown>
    for (const field of secretFields) if (field in parsed) parsed[field] = null
    body = JSON.stringify(parsed)
  }
  const headers: Record<string, string> = {}
  const contentType = response.headers.get('content-type')
  if (contentType) headers['content-type'] = contentType
  return { status: response.status, headers: JSON.stringify(headers), body }
}

/**
 * Stores a success inside the write that made it (the binding calls this before the write commits), so
 * a committed write always has its answer stored and a retry can never run it twice.
 */
export async function storeInWrite(db: Executor, c: Context<AppEnv>, response: Response): Promise<void> {
  const claimed = c.get('idempotency')
  if (!claimed) return
  const answer = await answerOf(response, claimed.secretFields)
  if (!(await storeAnswer(db, claimed.orgId, claimed.key, claimed.claimedAt, answer))) {
    // A retry took the claim over while this request was slow: it runs the write, so this one must not
    // commit its own (throwing rolls the write back).
    throw new ApiError(
      'idempotency_key_in_progress',
      `Idempotency-Key ${claimed.key} was taken over by a retry of this request while it ran; nothing was done`,
      { context: { idempotency_key: claimed.key }, headers: { 'Retry-After': '1' } },
    )
  }
  claimed.stored = true
}
