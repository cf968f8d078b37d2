import type { Context } from 'hono'
import type {
  OperationOutput,
  OperationSpec,
  OperationTable,
  ParsedInput,
} from '../../src/contract/operation.js'
import type { Routes } from '../../src/contract/routes.js'
import type { AppEnv, Principal } from './auth/principal.js'
import type { AppContext } from './context.js'

/*
 * What the handler of a declared operation (src/contract/*-routes.ts) receives and returns. The binding
 * (server/routes.ts) validates the path, query and body with the declaration's schemas and runs the
 * access middleware its `access` names before the handler runs; the handler hands the work to its
 * aggregate's service and returns the success body (answered with the declared status) or, when it
 * must set headers of its own, a whole Response.
 */

/**
 * The caller, for operations that authenticate a key; nothing for public and operator ones (either, for
 * an operation not known in advance: the binding's and a batch's).
 */
type PrincipalOf<O extends OperationSpec> = O['access'] extends infer A
  ? A extends 'key' | 'admin' | 'governance'
    ? Principal
    : undefined
  : never

export type HandlerInput<O extends OperationSpec> = ParsedInput<O> & {
  principal: PrincipalOf<O>
  /** The request's context, for the few handlers that read headers or answer with a Response. */
  c: Context<AppEnv>
}

export type Handler<O extends OperationSpec> = (
  ctx: AppContext,
  input: HandlerInput<O>,
) => Promise<OperationOutput<O> | Response> | OperationOutput<O> | Response

/** A handler for every operation of a table. */
export type Handlers<T extends OperationTable> = { [K in keyof T]: Handler<T[K]> }

/** Handlers of some of the API's operations: an aggregate's share of the table of contents. */
export type SomeHandlers = Partial<Handlers<Routes>>
