import { z } from 'zod'

/*
 * Batches (docs/batches.md): `POST /console/rwa/batch` runs up to 1,000 governance writes in order, each one
 * the single operation it names (its schemas, its role, its service), atomically by default.
 */

/** The most operations one batch may hold. */
export const MAX_BATCH_OPERATIONS = 1_000

/**
 * The operations a batch may hold: each name, the operation of the route table it runs, and for an
 * operation on an existing record, the body field that names the record (its path's `{id}`). The
 * operations a four-eyes policy may hold for approval (forced transfers, recoveries, credential
 * revocations, unfreezes) are not batched: a batch cannot wait for a second key.
 */
export const BATCH_OPERATIONS = {
  'jurisdictions.register': { operationId: 'registerJurisdiction' },
  'jurisdictions.update': { operationId: 'updateJurisdiction', idField: 'jurisdiction_id' },
  'trust.establish': { operationId: 'establishTrust' },
  'trust.revoke': { operationId: 'revokeTrust' },
  'issuers.register': { operationId: 'registerIssuer' },
  'identities.create': { operationId: 'createIdentity' },
  'identities.update': { operationId: 'updateIdentity', idField: 'identity_id' },
  'credentials.issue': { operationId: 'issueCredential' },
  'attestations.submit': { operationId: 'submitAttestation' },
  'attestations.revoke': { operationId: 'revokeAttestation', idField: 'attestation_id' },
  'attestations.suspend': { operationId: 'suspendAttestation', idField: 'attestation_id' },
  'attestations.reinstate': { operationId: 'reinstateAttestation', idField: 'attestation_id' },
  'tokens.create': { operationId: 'tokenize' },
  'tokens.rules': { operationId: 'setTokenRules', idField: 'token_id' },
  'tokens.pause': { operationId: 'pauseToken', idField: 'token_id' },
  'tokens.unpause': { operationId: 'unpauseToken', idField: 'token_id' },
  'tokens.freeze': { operationId: 'freezeHolder', idField: 'token_id' },
  'transfers.request': { operationId: 'requestTransfer' },
} as const satisfies Record<string, { operationId: string; idField?: string }>

export type BatchOperationName = keyof typeof BATCH_OPERATIONS

export const BATCH_OPERATION_NAMES = Object.keys(BATCH_OPERATIONS) as [
  BatchOperationName,
  ...BatchOperationName[],
]

/** A ref names an operation so that later ones can use what it answers. */
export const batchRefSchema = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_-]{0,63}$/, 'expected a name of letters, digits, _ and - (at most 64)')

/**
 * `{ "$result": "name.field" }`: the value of `field` (a dotted path) in what operation `name` answered.
 * Not `$ref`: OpenAPI tools (validators, mock servers, code generators) resolve every `$ref` key as a
 * JSON Reference, the examples of the document included.
 */
export const REF_KEY = '$result'

/**
 * The key batch references had first. Refused with 400 naming `$result`, so that a client written
 * against the old form learns the new one (docs/batches.md, "Refs": kept for one release).
 */
export const OLD_REF_KEY = '$ref'

/** The form of a `$result` value: a ref name, then a dotted path into its answer. */
export const REF_VALUE = /^([A-Za-z_][A-Za-z0-9_-]{0,63})\.([A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)*)$/

/**
 * How deeply an operation's body may nest objects and arrays. No operation's own schema nests near
 * this; the batch's body is any JSON until the operation's schema reads it, and a body nested
 * thousands deep would otherwise reach code that walks it (the refs' search, the text check).
 */
export const MAX_BATCH_BODY_DEPTH = 32

/** Whether `value` nests objects or arrays more than `levels` deep; looks no deeper than that. */
function nestedDeeperThan(value: unknown, levels: number): boolean {
  if (value === null || typeof value !== 'object') return false
  if (levels === 0) return true
  for (const child of Array.isArray(value) ? value : Object.values(value))
    if (nestedDeeperThan(child, levels - 1)) return true
  return false
}

export const batchOperationSchema = z.strictObject({
  ref: batchRefSchema
    .optional()
    .describe(
      'A name for this operation, unique in the batch: later operations use its answer with `{ "$result": "name.field" }`',
    ),
  op: z.enum(BATCH_OPERATION_NAMES).describe("The operation: its body is that operation's request body"),
  body: z
    .record(z.string(), z.unknown())
    .refine((body) => !nestedDeeperThan(body, MAX_BATCH_BODY_DEPTH), {
      message: `nested deeper than ${MAX_BATCH_BODY_DEPTH} levels of objects and arrays`,
    })
    .default({})
    .describe(
      'The operation\'s request body; an operation on an existing record names it in the body (`jurisdiction_id`, `attestation_id`, `token_id`). Any value may be `{ "$result": "name.field" }`, a field of what an earlier operation answered. Nested at most ' +
        MAX_BATCH_BODY_DEPTH +
        ' levels of objects and arrays',
    ),
})

export const batchRequestSchema = z.strictObject({
  operations: z
    .array(batchOperationSchema)
    .min(1)
    .max(MAX_BATCH_OPERATIONS)
    .describe(`The operations, run in order (at most ${MAX_BATCH_OPERATIONS})`),
  atomic: z
    .boolean()
    .default(true)
    .describe(
      'true (default): all or nothing, the first failure rolls every operation back (422); false: each operation stands alone',
    ),
  dry_run: z
    .boolean()
    .default(false)
    .describe(
      'Run the whole batch for real and roll it back: references, quotas, rules and evaluations are checked, nothing is kept',
    ),
})

export const batchResultSchema = z.object({
  index: z.number().int().nonnegative(),
  ref: z.string().nullable(),
  op: z.enum(BATCH_OPERATION_NAMES),
  status: z.number().int().describe('The HTTP status the operation alone would have had'),
  body: z
    .unknown()
    .describe("The operation's answer, as it alone would have had it (a problem document when it failed)"),
})

export const batchResponseSchema = z.object({
  results: z.array(batchResultSchema),
  dry_run: z.boolean().describe('True when nothing was kept'),
})

export type BatchRequest = z.infer<typeof batchRequestSchema>
export type BatchRequestInput = z.input<typeof batchRequestSchema>
export type BatchOperation = z.infer<typeof batchOperationSchema>
export type BatchResult = z.infer<typeof batchResultSchema>
export type BatchResponse = z.infer<typeof batchResponseSchema>
