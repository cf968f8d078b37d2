import { problemResponses } from '../http/openapi.js'

/** The OpenAPI tag of billing operations. */
export const billingTags = ['billing']

/** The refusals every authenticated billing route can answer. */
export const billingFailures = problemResponses(400, 401, 403, 429)
