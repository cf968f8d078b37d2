/**
 * The API contract: one zod schema per request, response, error and limit shape. The server validates
 * with these, the client parses with them, and the OpenAPI document is generated from them.
 */
export * from './billing.js'
export * from './common.js'
export * from './errors.js'
export * from './investor-rules.js'
export * from './limits.js'
export * from './operations.js'
export * from './pricing.js'
export * from './rwa.js'
