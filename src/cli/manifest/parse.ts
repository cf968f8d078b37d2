import { isMap, isScalar, isSeq, parseDocument, parse as parseYaml } from 'yaml'
import { z } from 'zod'
import {
  establishTrustRequestSchema,
  issueCredentialRequestSchema,
  registerJurisdictionRequestSchema,
  setTokenRulesRequestSchema,
  selfAttestationRequestSchema,
  titleDeedKey,
  tokenizeRequestSchema,
} from '../../contract/rwa.js'
import { DuplicateKeyError } from '../../text/strict-json.js'
import { EXIT, ExitError } from '../exit-error.js'

/*
 * The manifest `rwa apply` reads (JSON or YAML): its schema (each entry the API's request body, with a
 * credential's `ref` that attestations and tokens may name), and what makes it invalid before anything
 * is read from the server: a key twice, a dangling ref, two entries of one resource. How it is applied
 * is ./plan.ts, then ./execute.ts.
 */

/** A credential entry may carry `ref`, a local name attestations use instead of a credential_id. */
const credentialEntrySchema = z.strictObject({
  ...issueCredentialRequestSchema.shape,
  ref: z.string().min(1).max(100).optional().describe('Local name for attestations to refer to'),
})

/** An attestation entry may name its credential by `credential` (a ref) instead of `credential_id`. */
const attestationEntrySchema = z.strictObject({
  ...selfAttestationRequestSchema.shape,
  credential: z.string().min(1).max(100).optional().describe('ref of a credential in this manifest'),
})

/** The transfer rules of a token in a manifest: the PUT body without its reason. */
export const manifestRulesSchema = setTokenRulesRequestSchema.omit({ reason: true })

/** A token: of a credential in the manifest (`credential`, its ref) or already issued (`credential_id`). */
const tokenEntrySchema = z
  .strictObject({
    credential: z.string().min(1).max(100).optional().describe('ref of a credential in this manifest'),
    credential_id: tokenizeRequestSchema.shape.credential_id.optional(),
    total_supply: tokenizeRequestSchema.shape.total_supply,
    symbol: tokenizeRequestSchema.shape.symbol,
    rules: manifestRulesSchema.optional().describe('Transfer rules; absent rules are cleared'),
  })
  .refine((t) => (t.credential === undefined) !== (t.credential_id === undefined), {
    path: ['credential'],
    message: 'give credential (a ref) or credential_id, one of them',
  })

/** The manifest `rwa apply` reads (JSON or YAML). */
export const manifestSchema = z.strictObject({
  jurisdictions: z.array(registerJurisdictionRequestSchema).default([]),
  trust: z.array(establishTrustRequestSchema).default([]),
  credentials: z.array(credentialEntrySchema).default([]),
  attestations: z.array(attestationEntrySchema).default([]),
  tokens: z.array(tokenEntrySchema).default([]),
})
export type Manifest = z.infer<typeof manifestSchema>
export type ManifestInput = z.input<typeof manifestSchema>

/**
 * The first key twice in one mapping of manifest text, and where (`jurisdictions[0].name`), or
 * undefined (text that does not parse is left to the parse that says why). Readers disagree on which
 * of the two counts, so the manifest is refused, naming it.
 */
function duplicateKeyOf(text: string): DuplicateKeyError | undefined {
  const document = parseDocument(text, { uniqueKeys: false })
  if (document.errors.length > 0) return undefined
  const walk = (node: unknown, path: string): DuplicateKeyError | undefined => {
    if (isSeq(node)) {
      for (const [i, item] of node.items.entries()) {
        const found = walk(item, `${path}[${i}]`)
        if (found) return found
      }
    }
    if (!isMap(node)) return undefined
    const keys = new Set<string>()
    for (const pair of node.items) {
      const key = String(isScalar(pair.key) ? pair.key.value : pair.key)
      const at = path === '' ? key : `${path}.${key}`
      if (keys.has(key)) return new DuplicateKeyError(key, at)
      keys.add(key)
      const found = walk(pair.value, at)
      if (found) return found
    }
    return undefined
  }
  return walk(document.contents, '')
}

/**
 * What the YAML parser found wrong, where, and the lines it shows with a caret under the place: its
 * message is `<problem> at line L, column C:` followed by those lines.
 */
function yamlProblem(error: Error): string {
  const [first = '', ...excerpt] = error.message.split('\n')
  const at = / at line (\d+), column (\d+):$/.exec(first)
  const problem = at ? `${first.slice(0, at.index)} (line ${at[1]}, column ${at[2]})` : first
  const lines = excerpt.join('\n').replace(/^\n+|\n+$/g, '')
  return lines === '' ? problem : `${problem}\n${lines.replace(/^/gm, '  ')}`
}

/** Parses manifest text (JSON is YAML too) and validates it; exit 2 names every failing path. */
export function parseManifest(text: string, source: string): Manifest {
  const duplicate = duplicateKeyOf(text)
  if (duplicate) throw new ExitError(EXIT.usage, `${source}: ${duplicate.message}`)
  let value: unknown
  try {
    value = parseYaml(text)
  } catch (error) {
    throw new ExitError(EXIT.usage, `${source} is neither JSON nor YAML: ${yamlProblem(error as Error)}`)
  }
  const parsed = manifestSchema.safeParse(value ?? {})
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.') || '(manifest)'}: ${i.message}`)
    throw new ExitError(
      EXIT.usage,
      `invalid manifest ${source}: ${problems.join('; ')}`,
      'see `rwa apply --help` and docs/cli.md',
    )
  }
  const refs = new Set<string>()
  for (const [i, c] of parsed.data.credentials.entries()) {
    if (c.ref === undefined) continue
    if (refs.has(c.ref))
      throw new ExitError(
        EXIT.usage,
        `invalid manifest ${source}: credentials.${i}.ref: ${c.ref} is used twice`,
      )
    refs.add(c.ref)
  }
  for (const [i, a] of parsed.data.attestations.entries()) {
    if (a.credential !== undefined && !refs.has(a.credential)) {
      throw new ExitError(
        EXIT.usage,
        `invalid manifest ${source}: attestations.${i}.credential: no credential with ref ${a.credential}`,
      )
    }
    if (a.credential !== undefined && a.credential_id !== undefined) {
      throw new ExitError(
        EXIT.usage,
        `invalid manifest ${source}: attestations.${i}: give credential or credential_id, not both`,
      )
    }
  }
  for (const [i, t] of parsed.data.tokens.entries()) {
    if (t.credential !== undefined && !refs.has(t.credential)) {
      throw new ExitError(
        EXIT.usage,
        `invalid manifest ${source}: tokens.${i}.credential: no credential with ref ${t.credential}`,
      )
    }
  }
  const m = parsed.data
  if (KINDS.every((kind) => m[kind].length === 0))
    throw new ExitError(
      EXIT.usage,
      `${source} holds no resources: nothing to apply`,
      `a manifest lists ${KINDS.join(', ')}: see \`rwa apply --help\` and docs/cli.md`,
    )
  for (const kind of ['jurisdictions', 'trust', 'credentials', 'attestations'] as const)
    refuseRepeats(kind, m[kind] as readonly object[], IDENTITY[kind] as (entry: object) => string, source)
  return parsed.data
}

const KINDS = ['jurisdictions', 'trust', 'credentials', 'attestations', 'tokens'] as const

/**
 * What makes two entries of a kind the same resource, as the planner matches them against the server
 * (the identities above), described. Two entries with one identity would be planned as two changes of
 * one resource, or the second refused by the server as a duplicate of the first (which the batch has
 * just made), a refusal naming a record that does not exist yet. A token's is its credential's id,
 * known only once the planner has read the credentials (`planTokens`).
 */
const IDENTITY: { [K in Exclude<(typeof KINDS)[number], 'tokens'>]: (entry: Manifest[K][number]) => string } =
  {
    jurisdictions: (j) => `jurisdiction ${j.jurisdiction_id}`,
    // One active relation per pair of jurisdictions, in either direction (the server's unique index).
    trust: (t) => `trust between ${[t.from_jurisdiction, t.to_jurisdiction].sort().join(' and ')}`,
    // Within an organization, an active credential's (jurisdiction, title deed key) is unique.
    credentials: (c) => `title deed ${titleDeedKey(c.property_data.title_deed)} in ${c.jurisdiction}`,
    // valid_until as an instant, as the planner compares it (`...Z` and `....000Z` are one).
    attestations: (a) =>
      `attestation ${JSON.stringify([a.jurisdiction, a.subject_did, a.type, a.attester, a.credential ?? a.credential_id ?? null, a.evidence ?? null, a.valid_until === undefined ? null : Date.parse(a.valid_until)])}`,
  }

/** Exit 2 naming the first entry of `kind` whose identity an earlier entry has, and that entry. */
export function refuseRepeats<T>(
  kind: string,
  entries: readonly T[],
  identityOf: (entry: T) => string,
  source?: string,
): void {
  const seen = new Map<string, number>()
  for (const [index, entry] of entries.entries()) {
    const identity = identityOf(entry)
    const earlier = seen.get(identity)
    if (earlier !== undefined)
      throw new ExitError(
        EXIT.usage,
        `invalid manifest${source ? ` ${source}` : ''}: ${kind}.${index}: the same ${identity} as ${kind}.${earlier}; an entry is listed once`,
        `keep one of ${kind}.${earlier} and ${kind}.${index} (with the fields you want); nothing was sent`,
      )
    seen.set(identity, index)
  }
}
