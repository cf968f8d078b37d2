import type { ApiResponse } from '../client/http.js'
import type { OperationOutput } from '../contract/operation.js'
import type { Routes } from '../contract/routes.js'

/*
 * The types of a command's call of its operation. The request is not typed as the operation's input:
 * the command line builds it from text, the server validates it, and a refusal names the flag that gave
 * the field. The answer is typed as the operation's output, which the client parses.
 */

/** The operationId of an operation of the route table. */
export type OperationId = keyof Routes

/** What operation `K` answers when it succeeds. */
export type Output<K extends OperationId> = OperationOutput<Routes[K]>

/** An answer of operation `K`. */
export type Answer<K extends OperationId> = ApiResponse<Output<K>>

/** A request as the command line gives it: path parameters, query and body. */
export interface OperationRequest {
  params: Record<string, string>
  query: Record<string, unknown>
  body: Record<string, unknown>
}
