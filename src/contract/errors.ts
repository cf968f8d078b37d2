import { z } from 'zod'

/** Every error code the API answers with, and the HTTP status each one always carries. */
export const ERROR_STATUS = {
  invalid_request: 400,
  unauthenticated: 401,
  forbidden: 403,
  plan_required: 403,
  quota_exceeded: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  unprocessable: 422,
  rate_limited: 429,
  internal: 500,
  unavailable: 503,
} as const

export type ErrorCode = keyof typeof ERROR_STATUS

export const errorCodeSchema = z.enum(Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]])

/** Short human titles, one per code (the `title` member of a problem document). */
export const ERROR_TITLE: Record<ErrorCode, string> = {
  invalid_request: 'Invalid request',
  unauthenticated: 'Authentication required',
  forbidden: 'Forbidden',
  plan_required: 'Plan required',
  quota_exceeded: 'Quota exceeded',
  not_found: 'Not found',
  conflict: 'Conflict',
  payload_too_large: 'Payload too large',
  unsupported_media_type: 'Unsupported media type',
  unprocessable: 'Unprocessable request',
  rate_limited: 'Rate limit exceeded',
  internal: 'Internal error',
  unavailable: 'Service unavailable',
}

/** The `type` URI of a problem document for a code. */
export const problemType = (code: ErrorCode): string => `urn:rwa:problem:${code}`

export const fieldErrorSchema = z.object({
  path: z.string().describe('Dotted path of the failing field, e.g. `property_data.value_usd`'),
  message: z.string(),
})

/** RFC 9457 problem details, as every error response carries them (`application/problem+json`). */
export const problemSchema = z.object({
  type: z.string(),
  title: z.string(),
  status: z.number().int(),
  detail: z.string(),
  code: errorCodeSchema,
  errors: z.array(fieldErrorSchema).optional(),
  request_id: z
    .string()
    .optional()
    .describe(
      'The `X-Request-Id` of the request that failed (also in the response header): the server log line of the request carries it',
    ),
})

export type FieldError = z.infer<typeof fieldErrorSchema>
export type Problem = z.infer<typeof problemSchema>
