import type { OperationInput, OperationOutput, OperationSpec, OperationTable } from '../contract/operation.js'
import { pathOf, successSchemas, takesIdempotencyKey } from '../contract/operation.js'
import type { ApiResponse, HttpClient, Query } from './http.js'

/*
 * The client of a route table: one generic call per declared operation (src/contract/*-routes.ts), its
 * path, method and schemas read from the declaration. There is no second list of paths.
 */

/** One operation as a method: what it takes (path parameters, query, body) and its parsed answer. */
export type OperationMethod<O extends OperationSpec> =
  Record<never, never> extends OperationInput<O>
    ? (input?: OperationInput<O> & CallOptions) => Promise<ApiResponse<OperationOutput<O>>>
    : (input: OperationInput<O> & CallOptions) => Promise<ApiResponse<OperationOutput<O>>>

/** How one call is sent: the `Idempotency-Key` of a POST, when the caller chooses it. */
export interface CallOptions {
  idempotencyKey?: string
}

/** Every operation of a table as a method named by its operationId. */
export type OperationClient<T extends OperationTable> = { [K in keyof T]: OperationMethod<T[K]> }

/** Calls `operation` over `http`: its path filled from `params`, the query and body as given. */
export function callOperation<O extends OperationSpec>(
  http: HttpClient,
  operation: O,
  input: { params?: object; query?: object; body?: unknown } & CallOptions = {},
): Promise<ApiResponse<OperationOutput<O>>> {
  const mediaType = operation.response.mediaType
  const others = successSchemas(operation)
  others.delete(operation.response.status)
  return http.call({
    method: operation.method.toUpperCase() as 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    path: pathOf(operation.path, input.params as Record<string, unknown> | undefined),
    query: input.query as Query | undefined,
    body: input.body,
    schema: operation.response.schema,
    ...(mediaType !== undefined && mediaType !== 'application/json' ? { text: true } : {}),
    ...(takesIdempotencyKey(operation) ? { idempotent: true } : {}),
    ...(input.idempotencyKey !== undefined ? { idempotencyKey: input.idempotencyKey } : {}),
    ...(others.size > 0 ? { otherSchemas: others } : {}),
  }) as Promise<ApiResponse<OperationOutput<O>>>
}

/** A client over every operation of `table`. */
export function operationClient<T extends OperationTable>(http: HttpClient, table: T): OperationClient<T> {
  const client: Record<string, unknown> = {}
  for (const [operationId, operation] of Object.entries(table)) {
    client[operationId] = (input?: object) => callOperation(http, operation, input)
  }
  return client as OperationClient<T>
}
