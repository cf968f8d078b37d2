import type { z } from 'zod'
import type { ApprovableOperation } from './approvals.js'
import type { Reason } from './errors.js'
import { ROLES, type Role } from './roles.js'

/*
 * One declaration per operation. Each area's route table (`billing-routes.ts`, `rwa-routes.ts`,
 * `operations-routes.ts`) declares its operations once, with everything a reader, the server, the client,
 * the OpenAPI document and the docs need: operationId, method, path, schemas, examples, who may call it
 * and the refusal reasons its rules give. The server binds one handler to each declaration and derives
 * the access middleware from `access` (server/http/bind.ts); the client is one generic call over the
 * tables (src/client/call.ts); the OpenAPI document is derived from them (server/platform/http/openapi.ts).
 * Nothing here imports a server or HTTP library, so the CLI bundles it.
 */

/**
 * Who may call an operation: anyone (`public`); any valid API key (`key`: authentication, limits and
 * metering); the admin key (`admin`: authenticated, limited and metered like any key); a key of an
 * organization with a paid tier or an active trial (`governance`); or the admin key alone, neither
 * limited nor metered (`operator`: operators' tools such as a metrics scraper).
 */
export type Access = 'public' | 'key' | 'admin' | 'governance' | 'operator'

/** Access that authenticates the key, applies the organization's limits and meters the request. */
export const isLimited = (access: Access): boolean =>
  access === 'key' || access === 'admin' || access === 'governance'

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete'

/** A JSON request body: its schema, an example for the document, and whether it may be left out. */
export interface BodySpec<S extends z.ZodType = z.ZodType> {
  schema: S
  example: unknown
  /** False: absent (or sent with another content type) it reads as `{}`. */
  required: boolean
  /**
   * The handler reads the body as text itself (a signature covers its exact bytes): the schema only
   * documents it, with unknown fields allowed, and nothing validates it before the handler.
   */
  raw?: boolean
}

/** The answer an operation gives when it succeeds. */
export interface ResponseSpec<S extends z.ZodType = z.ZodType> {
  status: 200 | 201 | 202
  schema: S
  description: string
  example: unknown
  /** `application/json` unless said otherwise (a status list is `application/vc+jwt`). */
  mediaType?: string
}

/** A header the operation reads, documented as an OpenAPI parameter. */
export interface HeaderParameter {
  name: string
  required: boolean
  description: string
  example?: string
}

/** Another documented answer (a 304, or a 503 with a body of its own), as an OpenAPI response object. */
export interface OtherResponse {
  description: string
  content?: Record<string, { schema: z.ZodType; example?: unknown }>
}

/** What an operation's declaration says; `defineOperation` keeps its literal types. */
export interface OperationSpec {
  /** A stable name for clients and the CLI, e.g. `createKey`. */
  operationId: string
  method: HttpMethod
  /** The path with `{name}` parameters, e.g. `/console/rwa/tokens/{id}`. */
  path: string
  access: Access
  /**
   * The roles of a key (docs/keys.md, "Roles") that may call it besides `owner`, which may call everything.
   * Absent: every role for a GET (every role reads its organization's records), `owner` alone for anything
   * else. Read it through `rolesOf`; only `key` and `governance` access look at roles (`admin` and `operator`
   * admit the admin key, an owner, alone).
   */
  roles?: readonly Role[]
  tags: readonly string[]
  summary: string
  description?: string
  params?: z.ZodType
  /** Absent: any query parameter is refused, like an unknown body field. */
  query?: z.ZodType
  body?: BodySpec
  headers?: readonly HeaderParameter[]
  response: ResponseSpec
  otherResponses?: Readonly<Record<number, OtherResponse>>
  /**
   * The reasons the operation's own rules can refuse with (each fixes a status: 404, 409, 422, ...).
   * Those that follow from `access` and `body` (401s, 429, 400, 413, 415, the plan) are added for it.
   */
  refusals?: readonly Reason[]
  /**
   * The audit actions (docs/accountability.md, "What is recorded") a successful call records, one of
   * them per call: every write declares its own, and a test generated over the table checks each write
   * records exactly one.
   */
  audit?: readonly string[]
  /**
   * Fields of the success body never stored (a raw key): an `Idempotency-Key` replay answers them
   * `null`, so the response schema must allow it.
   */
  secretFields?: readonly string[]
  /**
   * The name an organization's four-eyes policy (docs/accountability.md, "Four eyes") gives the operation:
   * when the policy names it, the call answers 202 with a pending approval (declared in `otherResponses`, see
   * `approvable` in ./approvals.ts) and another key runs it by approving.
   */
  approval?: ApprovableOperation
}

/** The roles that may call an operation: `owner`, what its declaration names, every role for a GET. */
export function rolesOf(operation: Pick<OperationSpec, 'method' | 'roles'>): readonly Role[] {
  if (operation.roles === undefined && operation.method === 'get') return ROLES
  const allowed = new Set<Role>(['owner', ...(operation.roles ?? [])])
  return ROLES.filter((role) => allowed.has(role))
}

/** Whether a key's roles are checked for an operation: some role may not call it. */
export const checksRoles = (operation: Pick<OperationSpec, 'access' | 'method' | 'roles'>): boolean =>
  (operation.access === 'key' || operation.access === 'governance') &&
  rolesOf(operation).length < ROLES.length

/** The request header that makes a POST safe to retry (docs/accountability.md, "Retrying a write safely"). */
export const IDEMPOTENCY_HEADER = 'Idempotency-Key'

/** The answer header of a replay. */
export const REPLAYED_HEADER = 'Idempotent-Replayed'

/** Every POST that takes a key takes an `Idempotency-Key` (the payment webhook has its own event ids). */
export const takesIdempotencyKey = (operation: Pick<OperationSpec, 'method' | 'access'>): boolean =>
  operation.method === 'post' && operation.access !== 'public' && operation.access !== 'operator'

/** Declares an operation, keeping the literal types of its schemas for the server and the client. */
export const defineOperation = <const O extends OperationSpec>(operation: O): O => operation

/** A required JSON request body validated by `schema`, with an example for the document. */
export const jsonBody = <S extends z.ZodType>(
  schema: S,
  example: z.input<S>,
): BodySpec<S> & { required: true } => ({
  schema,
  example,
  required: true,
})

/** An optional JSON request body (absent, or sent with another content type, it reads as `{}`). */
export const optionalJsonBody = <S extends z.ZodType>(
  schema: S,
  example: z.input<S>,
): BodySpec<S> & { required: false } => ({
  schema,
  example,
  required: false,
})

/** A JSON answer documented by `schema`, with an example of the body. */
export const jsonResponse = <S extends z.ZodType, St extends 200 | 201 | 202>(
  status: St,
  schema: S,
  description: string,
  example: z.output<S>,
): ResponseSpec<S> & { status: St } => ({ status, schema, description, example })

/** A table of operations, keyed by operationId. */
export type OperationTable = Readonly<Record<string, OperationSpec>>

type InputPart<O, K extends 'params' | 'query', Out extends boolean> = O extends {
  [P in K]: infer S extends z.ZodType
}
  ? Out extends true
    ? z.output<S>
    : z.input<S>
  : undefined

type BodyPart<O, Out extends boolean> = O extends { body: infer B extends BodySpec }
  ? Out extends true
    ? z.output<B['schema']>
    : z.input<B['schema']>
  : undefined

/** No fields. */
type Empty = Record<never, never>

/** A part of the input: absent when not declared, optional when everything in it is. */
type Part<K extends string, T> = [T] extends [undefined]
  ? Empty
  : Empty extends T
    ? { [P in K]?: T }
    : { [P in K]: T }

/** An optional body may be left out. */
type BodyInput<O> = O extends { body: { required: false } }
  ? { body?: BodyPart<O, false> }
  : Part<'body', BodyPart<O, false>>

/** What a client sends: the path parameters, the query and the body, as the schemas take them. */
export type OperationInput<O extends OperationSpec> = Part<'params', InputPart<O, 'params', false>> &
  Part<'query', InputPart<O, 'query', false>> &
  BodyInput<O>

/** What a handler receives: the same, as the schemas parsed them. */
export type ParsedInput<O extends OperationSpec> = {
  params: InputPart<O, 'params', true>
  query: InputPart<O, 'query', true>
  body: BodyPart<O, true>
}

/** The JSON bodies of the other successes an operation declares (a 202 of a four-eyes approval). */
type OtherSuccessOutput<O> = O extends { otherResponses: infer R }
  ? {
      [K in keyof R]: K extends 200 | 201 | 202
        ? R[K] extends { content: { 'application/json': { schema: infer S extends z.ZodType } } }
          ? z.output<S>
          : never
        : never
    }[keyof R]
  : never

/**
 * The success body of an operation, as its response schema describes it, or as one of the other
 * successes it declares does (the pending approval a four-eyes policy answers with).
 */
export type OperationOutput<O extends OperationSpec> =
  | z.output<O['response']['schema']>
  | OtherSuccessOutput<O>

/** The schema of each success status an operation declares: its response's, and its other 2xx JSON ones. */
export function successSchemas(
  operation: Pick<OperationSpec, 'response' | 'otherResponses'>,
): Map<number, z.ZodType> {
  const schemas = new Map<number, z.ZodType>([[operation.response.status, operation.response.schema]])
  for (const [status, other] of Object.entries(operation.otherResponses ?? {})) {
    const json = other.content?.['application/json']
    if (Number(status) < 300 && json) schemas.set(Number(status), json.schema)
  }
  return schemas
}

/** Fills the `{name}` parameters of a path template. */
export function pathOf(template: string, params: Record<string, unknown> | undefined): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params?.[name]
    if (value === undefined) throw new Error(`${template}: missing path parameter ${name}`)
    return encodeURIComponent(String(value))
  })
}

/** The load balancers' probes: they answer without the database (`/readyz` says when it is lost). */
export const PROBE_PATHS: ReadonlySet<string> = new Set(['/healthz', '/readyz'])

/**
 * Whether the per-client bucket of the routes without a key applies (README.md, "Configuration",
 * `--public-rate-limit`): every public route but the probes, which a load balancer must always be
 * able to reach.
 */
export const isPubliclyLimited = (operation: Pick<OperationSpec, 'access' | 'path'>): boolean =>
  operation.access === 'public' && !PROBE_PATHS.has(operation.path)

/**
 * The reasons every operation of its kind can refuse with, whatever its own rules: a value that fails
 * its schema; with a body, a body that is not JSON, too large or of another media type; with a key, the
 * key's refusals (and a console session's, with its CSRF token for a write), and with limits the rate limit; the key's roles where some role may not call it; the
 * plan for governance; the admin key for admin and operator; and, but for the probes (which answer
 * without it), a database that cannot be reached.
 */
export function standardReasons(
  operation: Pick<OperationSpec, 'access' | 'body' | 'method' | 'path' | 'roles'>,
): Reason[] {
  const reasons: Reason[] = ['invalid_field']
  if (operation.body) reasons.push('malformed_body', 'payload_too_large', 'json_required')
  if (operation.access !== 'public')
    reasons.push('key_missing', 'key_malformed', 'key_unknown', 'key_revoked', 'key_expired', 'session_ended')
  // A console session authenticates as its key; its writes carry the session's CSRF token.
  if (operation.access !== 'public' && operation.method !== 'get') reasons.push('csrf_token_invalid')
  if (isLimited(operation.access)) reasons.push('rate_limited')
  // A request without a valid key counts against its address's bucket wherever it goes.
  if (operation.access !== 'public' || isPubliclyLimited(operation)) reasons.push('public_rate_limited')
  if (checksRoles(operation)) reasons.push('role_required')
  if (operation.access === 'governance') reasons.push('plan_required')
  if (operation.access === 'admin' || operation.access === 'operator') reasons.push('admin_key_required')
  if (!PROBE_PATHS.has(operation.path)) reasons.push('database_unavailable')
  if (takesIdempotencyKey(operation)) reasons.push('idempotency_key_reused', 'idempotency_key_in_progress')
  return reasons
}
