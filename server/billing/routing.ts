/** The OpenAPI tag of billing operations. */
export const billingTags = ['billing']
