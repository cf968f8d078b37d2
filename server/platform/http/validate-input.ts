import type { OpenAPIHono, RouteConfig } from '@hono/zod-openapi'
import type { Context, Env, Handler, MiddlewareHandler } from 'hono'
import { HTTPException } from 'hono/http-exception'
import type { z } from 'zod'
import { $ZodAsyncError } from 'zod/v4/core'
import { invalidFields, validationError } from '../errors.js'
import { illFormedInput } from './well-formed.js'

/*
 * An operation's path, query and JSON body validated in one middleware, with the same checks, in the
 * same order and with the same refusals as @hono/zod-openapi's `openapi()` (its query and path
 * validators, its media type gate, its JSON validator: @hono/zod-validator over hono's `validator`),
 * which ran them as up to four async layers, each zod schema by `safeParseAsync`. Every contract schema
 * is synchronous, so `safeParse` gives the same result without its promises; a schema that is not
 * (zod throws for it) is still parsed asynchronously. On Node 20 every promise also pays
 * AsyncLocalStorage's hook (docs/performance.md, "Fifth pass: what a write pays above its service").
 */

const TARGET_NAMES: Record<string, string> = { json: 'body', query: 'query', param: 'path', header: 'header' }

type Target = 'json' | 'query' | 'param'
type Validated = { success: true; data: unknown } | { success: false; error: z.ZodError }

/**
 * The app's validation hook (every route's, `defaultHook`): a refused input is a 400 naming its
 * fields; a valid one is refused too when its text is not well-formed Unicode, wherever it came in.
 */
export function refuseInvalidInput(
  result: Validated & { target: string; data?: unknown },
  c: Context,
): undefined {
  const where = TARGET_NAMES[result.target] ?? result.target
  if (!result.success) throw validationError(result.error, where)
  const illFormed = illFormedInput(result.target, result.data, c)
  if (illFormed.length > 0) throw invalidFields(where, illFormed)
  return undefined
}

/** What the middleware validates: the schemas `routeOf` puts in the route's `request`. */
export interface InputSchemas {
  params?: z.ZodType
  query?: z.ZodType
  /** A zod-validated JSON body; a raw body (read by its handler) is not given here. */
  body?: { schema: z.ZodType; required: boolean }
}

// As @hono/zod-openapi and hono's validator test them (node_modules/@hono/zod-openapi/dist/index.mjs).
const jsonMediaType = /^application\/([\w.-]+\+)?json$/i
const isJsonContentType = (contentType: string) => /^application\/([a-z-.]+\+)?json/i.test(contentType)
const jsonRequest = /^application\/([a-z-.]+\+)?json(;\s*[a-zA-Z0-9-]+=([^;]+))*$/i

/** One schema's parse: synchronous when the schema is (every contract schema), else awaited. */
function parse(schema: z.ZodType, value: unknown): Validated | Promise<Validated> {
  try {
    return schema.safeParse(value) as Validated
  } catch (error) {
    // The schema has an async refinement or transform.
    if (error instanceof $ZodAsyncError) return schema.safeParseAsync(value) as Promise<Validated>
    throw error
  }
}

/** Validates one target, hands its data to `c.req.valid`; a refusal throws (the hook's 400). */
function settle(c: Context, target: Target, value: unknown, result: Validated): void {
  refuseInvalidInput({ data: value, ...result, target }, c)
  // The hook throws on a failure; what zod-validator would answer without one, for completeness.
  if (!result.success) throw new HTTPException(400, { message: 'Invalid input' })
  c.req.addValidatedData(target, result.data as object)
}

async function validateAsync(c: Context, target: Target, value: unknown, pending: Promise<Validated>) {
  settle(c, target, value, await pending)
}

/** Whether a request without a Content-Type carries a body (@hono/zod-openapi's `hasRequestBody`). */
async function hasRequestBody(c: Context): Promise<boolean> {
  const raw = c.req.raw
  if (raw.body === null) return false
  if (raw.bodyUsed) return (await c.req.arrayBuffer()).byteLength > 0
  const body = raw.clone().body
  if (body === null) return false
  const reader = body.getReader()
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) return false
      if (value.byteLength > 0) return true
    }
  } finally {
    reader.cancel().catch(() => {})
  }
}

/** The JSON body as hono's validator reads it: `{}` unless the media type is JSON; 400 when malformed. */
async function jsonBody(c: Context, contentType: string | undefined): Promise<unknown> {
  const mediaType = contentType ? (contentType.split(';')[0] ?? '').trim().toLowerCase() : ''
  if (!jsonMediaType.test(mediaType)) return {}
  try {
    return await c.req.json()
  } catch {
    throw new HTTPException(400, { message: 'Malformed JSON in request body' })
  }
}

/** The middleware validating an operation's path, query and body, in @hono/zod-openapi's order. */
export function validateInput(schemas: InputSchemas): MiddlewareHandler {
  const { params, query, body } = schemas
  const check = (c: Context, target: Target, schema: z.ZodType, value: unknown) => {
    const result = parse(schema, value)
    if (result instanceof Promise) return validateAsync(c, target, value, result)
    settle(c, target, value, result)
    return undefined
  }
  return async function validatedInput(c, next) {
    if (query) {
      const values = Object.fromEntries(
        Object.entries(c.req.queries()).map(([k, v]) => (v.length === 1 ? [k, v[0]] : [k, v])),
      )
      await check(c, 'query', query, values)
    }
    if (params) await check(c, 'param', params, c.req.param())
    if (body) {
      const contentType = c.req.header('content-type')
      // The media type gate: a body of another type is 415, and so is a body without a type.
      if (contentType) {
        if (!jsonRequest.test(contentType))
          throw new HTTPException(415, { message: 'Unsupported Media Type' })
      } else if (await hasRequestBody(c)) throw new HTTPException(415, { message: 'Unsupported Media Type' })
      // An optional body sent absent (or as another JSON-ish type zod-openapi lets by) reads as `{}`.
      if (!body.required && !(contentType && isJsonContentType(contentType)))
        c.req.addValidatedData('json', {})
      else {
        const value = await jsonBody(c, contentType)
        await check(c, 'json', body.schema, value)
      }
    }
    await next()
  }
}

/**
 * Binds a route as `app.openapi({ ...route, middleware }, handler)` does (its path in the document, the
 * middleware, then the input's validation), the input validated by `validateInput`. `body` is the
 * zod-validated JSON body, when the operation has one (not a raw one).
 */
export function bindValidated<E extends Env>(
  app: OpenAPIHono<E>,
  route: RouteConfig,
  body: InputSchemas['body'],
  middleware: MiddlewareHandler<E>[],
  handler: Handler<E>,
): void {
  app.openAPIRegistry.registerPath(route)
  const validated = validateInput({
    params: route.request?.params as z.ZodType | undefined,
    query: route.request?.query as z.ZodType | undefined,
    body,
  })
  const path = route.path.replaceAll(/\/{(.+?)}/g, '/:$1')
  app.on([route.method.toUpperCase()], [path], ...middleware, validated, handler)
}
