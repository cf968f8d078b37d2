import type { ZodType } from 'zod'
import { problemSchema } from '../../src/contract/errors.js'

/** A required JSON request body validated by `schema`. */
export const jsonBody = <T extends ZodType>(schema: T) =>
  ({ content: { 'application/json': { schema } }, required: true }) as const

/** A JSON response documented by `schema`. */
export const jsonResponse = <T extends ZodType>(schema: T, description: string) =>
  ({ content: { 'application/json': { schema } }, description }) as const

/** Problem-details responses for the OpenAPI document, keyed by status. */
export const problemResponses = (...statuses: number[]) =>
  Object.fromEntries(
    statuses.map((status) => [
      status,
      {
        content: { 'application/problem+json': { schema: problemSchema } },
        description: 'Problem details (RFC 9457)',
      },
    ]),
  )
