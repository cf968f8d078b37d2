import { z } from 'zod'
import { auditEventExample, auditEventSchema } from './audit.js'
import { orgIdSchema } from './common.js'

/*
 * The verifiable log of an organization's audit events (docs/governance.md, "The verifiable log"): RFC 9162
 * Merkle tree proofs and C2SP checkpoints. Hashes are base64 (standard alphabet, padded), as in a
 * checkpoint's root line.
 */

/** The most entries one `/log/entries` call returns. */
export const MAX_LOG_ENTRIES = 1000

const orgQuery = {
  org_id: orgIdSchema
    .optional()
    .describe("The organization whose log to read (admin key); defaults to the caller's own"),
}
// The message names what is expected (the CLI shows it after the flag: `--index: expected ...`).
const NON_NEGATIVE = 'expected a non-negative integer: log positions and sizes start at 0'
const position = (what: string) =>
  z.coerce
    .number()
    .int(NON_NEGATIVE)
    .min(0, NON_NEGATIVE)
    .max(Number.MAX_SAFE_INTEGER, `expected at most ${Number.MAX_SAFE_INTEGER}`)
    .describe(what)
const hashSchema = z
  .string()
  .regex(/^[A-Za-z0-9+/]{43}=$/, 'a base64 SHA-256 hash')
  .describe('A SHA-256 hash, base64')

export const logCheckpointQuerySchema = z.strictObject(orgQuery)

export const logKeySchema = z.object({
  kid: z.string().describe("The log key's id in the JWKS (its RFC 7638 thumbprint)"),
  vkey: z
    .string()
    .describe(
      'The C2SP note verifier key `<origin>+<hex key id>+<base64(0x01 || Ed25519 public key)>` that signs this log',
    ),
})

export const logCheckpointSchema = z.object({
  org_id: orgIdSchema,
  origin: z
    .string()
    .describe('`<public host>/console/audit/<org_id>`: the checkpoint origin and note key name'),
  tree_size: z.number().int().nonnegative().describe('How many events the log holds'),
  root_hash: hashSchema.describe('The RFC 9162 root hash of the tree of `tree_size` events'),
  checkpoint: z
    .string()
    .describe(
      'The C2SP tlog-checkpoint signed note (origin, size, root, blank line, Ed25519 signature line): what an auditor keeps',
    ),
  log_key: logKeySchema,
})

export const logEntriesQuerySchema = z
  .strictObject({
    ...orgQuery,
    start: position('The first log position, inclusive'),
    end: position(`The last log position, exclusive; at most ${MAX_LOG_ENTRIES} after start`),
  })
  .refine((q) => q.end > q.start, { path: ['end'], message: 'end must be greater than start' })
  .refine((q) => q.end - q.start <= MAX_LOG_ENTRIES, {
    path: ['end'],
    message: `at most ${MAX_LOG_ENTRIES} entries per call`,
  })

export const logEntriesSchema = z.object({
  org_id: orgIdSchema,
  start: z.number().int(),
  end: z.number().int().describe('Exclusive; below the requested end when the log is shorter'),
  entries: z.array(auditEventSchema).describe('The events at positions [start, end), in log order'),
})

export const logInclusionQuerySchema = z
  .strictObject({
    ...orgQuery,
    index: position("The event's log position (`log_index`)"),
    tree_size: position('The size of the checkpoint to prove against'),
  })
  .refine((q) => q.index < q.tree_size, { path: ['index'], message: 'index must be below tree_size' })

export const logInclusionSchema = z.object({
  org_id: orgIdSchema,
  index: z.number().int(),
  tree_size: z.number().int(),
  leaf_hash: hashSchema.describe("SHA-256(0x00 || the event's canonical JSON without log_index)"),
  root_hash: hashSchema.describe('The root of the tree of `tree_size` events'),
  proof: z.array(hashSchema).describe('The RFC 9162 §2.1.3 inclusion proof, leaf end first'),
})

export const logConsistencyQuerySchema = z
  .strictObject({
    ...orgQuery,
    from: position('The smaller tree size (at least 1)').pipe(z.number().min(1)),
    to: position('The larger tree size'),
  })
  .refine((q) => q.from <= q.to, { path: ['from'], message: 'from must not exceed to' })

export const logConsistencySchema = z.object({
  org_id: orgIdSchema,
  from: z.number().int(),
  to: z.number().int(),
  from_root: hashSchema,
  to_root: hashSchema,
  proof: z.array(hashSchema).describe('The RFC 9162 §2.1.4 consistency proof'),
})

export type LogCheckpointQuery = z.infer<typeof logCheckpointQuerySchema>
export type LogCheckpoint = z.infer<typeof logCheckpointSchema>
export type LogEntriesQuery = z.infer<typeof logEntriesQuerySchema>
export type LogEntries = z.infer<typeof logEntriesSchema>
export type LogInclusionQuery = z.infer<typeof logInclusionQuerySchema>
export type LogInclusion = z.infer<typeof logInclusionSchema>
export type LogConsistencyQuery = z.infer<typeof logConsistencyQuerySchema>
export type LogConsistency = z.infer<typeof logConsistencySchema>

const exampleRoot = 'qM4n2hW1nO9lVx0Yb3Qz8kKp5fJc7eT2rD6sA1uG0wE='
const exampleOrigin = 'rwa.example.com/console/audit/acme'
export const logCheckpointExample: LogCheckpoint = {
  org_id: 'acme',
  origin: exampleOrigin,
  tree_size: 42,
  root_hash: exampleRoot,
  checkpoint: `${exampleOrigin}\n42\n${exampleRoot}\n\n\u2014 ${exampleOrigin} Pz3oNw9sY1mL0cV6tQ8hK2dR5jX7fB4nW1aE3uI9gT0zS6yC8vM2kP4qL7oH5rJ1wD3xF9bN0eA2sU6iG8tZ4cV1mB5nQ7pR==\n`,
  log_key: {
    kid: 'Wn4pT1qR8sV3xY6zA9bC2dE5fG7hJ0kL4mN6oP8qR1s',
    vkey: `${exampleOrigin}+3f2a9c1b+AbS0mF7pQ2nV9xK4cL8hT1zR6wY3dG5jE0uN7oP2aC4s`,
  },
}
export const logEntriesExample: LogEntries = {
  org_id: 'acme',
  start: 41,
  end: 42,
  entries: [auditEventExample],
}
export const logInclusionExample: LogInclusion = {
  org_id: 'acme',
  index: 41,
  tree_size: 42,
  leaf_hash: 'bjQLnP+zepicpUTmu3gKLHiQHT+zNzh2hRGjBhevoB0=',
  root_hash: exampleRoot,
  proof: ['lqKW0iTyhcZ77pPDD4owkVfw2qNdxbh+QQt4YwoJz8c=', 'Xwg/ChozygdqlSeYMlgNs+DvRYS9/x9UyKNg9Q3jAx4='],
}
export const logConsistencyExample: LogConsistency = {
  org_id: 'acme',
  from: 40,
  to: 42,
  from_root: 'XcnaeacGWamtVZy3Ad7ZoqudgjqtL0lgz+Nw7/RgQyg=',
  to_root: exampleRoot,
  proof: ['a0eq8p7jwq+a+Im8H7klTavTEXfxYjLdaqsDXKOb9uQ='],
}
