import type { z } from 'zod'
import type { RwaClient } from '../../client/index.js'
import type { BatchOperationName } from '../../contract/batch.js'
import { investorRulesOf } from '../../contract/investor-rules.js'
import {
  type Attestation,
  type Credential,
  type Jurisdiction,
  type Token,
  type TokenRules,
  titleDeedKey,
  type TrustRelation,
} from '../../contract/rwa.js'
import { EXIT, ExitError } from '../exit-error.js'
import { type Manifest, type manifestRulesSchema, refuseRepeats } from './parse.js'

/*
 * `rwa apply`: a manifest of jurisdictions, trust relations, credentials, attestations and tokens,
 * applied in that (dependency) order. Planning only reads; execution then makes exactly the planned changes, so a
 * second apply of the same manifest finds everything up to date and changes nothing.
 *
 * Identity of each entry (what "already there" means):
 * - jurisdiction: its jurisdiction_id; differing fields are updated (PUT).
 * - trust: the active relation with the same from/to and the same `mutual` (a mutual relation also
 *   matches the reverse pair); one with the same from/to but a different `mutual` is replaced.
 * - credential: an active credential of the same jurisdiction, owner_did and title_deed (compared
 *   trimmed, case-insensitive, as the server does). Credentials are signed and immutable: if its other
 *   fields differ, apply stops before changing anything. With none active but a revoked one, the entry
 *   is reported `revoked` and nothing is issued: a revocation is for good
 *   (docs/verification.md, "`rwa apply` and revoked credentials"). Another owner's active credential of the
 *   deed stops apply before anything changes.
 * - attestation: one with the same jurisdiction, subject, type, attester, credential, evidence and
 *   valid_until (a renewal with a new valid_until is a new attestation).
 * - token: the token of its credential (one per credential). total_supply and symbol are fixed once
 *   tokenized (a difference stops apply); its `rules` are updated (PUT, the whole object) when they differ.
 */

/** `revoked`: a credential of the manifest that was revoked; reported, never issued again. */
export type ChangeAction = 'create' | 'update' | 'replace' | 'unchanged' | 'revoked'
export type ResourceKind = 'jurisdiction' | 'trust' | 'credential' | 'attestation' | 'token'

/** One planned (or applied) change. `id` is the resource id when it exists (or once created). */
export interface Change {
  action: ChangeAction
  kind: ResourceKind
  /** What the entry is, for people: `US`, `US -> SG`, `did:web:acme:alice TX-001`. */
  name: string
  id: string | null
  /** For updates: the fields that differ. */
  fields?: string[]
}

/** One operation of the batch that applies a manifest (docs/batches.md). */
export interface ManifestOperation {
  op: BatchOperationName
  body: Record<string, unknown>
}

/**
 * How a change names what another change of the same apply creates: `credential(ref)` is the id of the
 * manifest's credential of that ref (a `$result` to its issue when it is created in the same batch), and
 * `own(k, field)` a field of what the change's own k-th operation answers.
 */
export interface Refs {
  credential(ref: string): unknown
  own(k: number, field: string): unknown
}

/**
 * A planned change: `ops` are the batch operations that make it (absent when unchanged), `idFrom` which
 * of their answers holds the id of what it makes; `ref` is a credential's manifest name; `entry` names
 * the manifest entry (`trust[0]`), so that a failure can say which.
 */
type PlannedChange = Change & {
  entry: string
  ref?: string
  ops?: (refs: Refs) => ManifestOperation[]
  idFrom?: { op: number; field: string }
}
export type Plan = PlannedChange[]

const sameList = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((x, i) => x === b[i])

/** Reads every page of a list. */
async function all<T>(
  fetchPage: (cursor?: string) => Promise<{ data: { next_cursor: string | null } & Record<string, unknown> }>,
  plural: string,
): Promise<T[]> {
  const items: T[] = []
  let cursor: string | undefined
  do {
    const { data } = await fetchPage(cursor)
    items.push(...(data[plural] as T[]))
    cursor = data.next_cursor ?? undefined
  } while (cursor !== undefined)
  return items
}

/** Timestamps compare as instants: the server may write `...:00Z` as `...:00.000Z`. */
const sameInstant = (a: string | null, b: string | null) =>
  a === null || b === null ? a === b : Date.parse(a) === Date.parse(b)

const directions = (t: { from_jurisdiction: string; to_jurisdiction: string; mutual: boolean }) => {
  const d = [`${t.from_jurisdiction}>${t.to_jurisdiction}`]
  if (t.mutual) d.push(`${t.to_jurisdiction}>${t.from_jurisdiction}`)
  return d.sort().join(',')
}

/** Works out what applying `manifest` would change. Reads only. */
export async function planManifest(rwa: RwaClient, manifest: Manifest): Promise<Plan> {
  const gov = rwa.governance
  const plan: Plan = []

  const existingJurisdictions = new Map(
    (
      await all<Jurisdiction>(
        (cursor) => gov.listJurisdictions({ query: { limit: 500, cursor } }),
        'jurisdictions',
      )
    ).map((j) => [j.jurisdiction_id, j]),
  )
  for (const [index, entry] of manifest.jurisdictions.entries()) {
    const current = existingJurisdictions.get(entry.jurisdiction_id)
    const { jurisdiction_id, ...config } = entry
    const at = `jurisdictions[${index}]`
    if (!current) {
      plan.push({
        action: 'create',
        kind: 'jurisdiction',
        name: jurisdiction_id,
        id: null,
        entry: at,
        ops: () => [{ op: 'jurisdictions.register', body: entry }],
        idFrom: { op: 0, field: 'jurisdiction_id' },
      })
      continue
    }
    const fields = (Object.keys(config) as Array<keyof typeof config>).filter((k) => {
      const want = config[k]
      const have = current[k]
      return Array.isArray(want) ? !sameList(want, have as string[]) : want !== have
    })
    plan.push({
      action: fields.length > 0 ? 'update' : 'unchanged',
      kind: 'jurisdiction',
      name: jurisdiction_id,
      id: jurisdiction_id,
      entry: at,
      ...(fields.length > 0
        ? {
            fields,
            ops: () => [{ op: 'jurisdictions.update', body: { jurisdiction_id, ...config } }],
          }
        : {}),
    })
  }

  const activeTrust = await all<TrustRelation>(
    (cursor) => gov.listTrust({ query: { status: 'active', limit: 500, cursor } }),
    'trust_relations',
  )
  for (const [index, entry] of manifest.trust.entries()) {
    const at = `trust[${index}]`
    const name = `${entry.from_jurisdiction} ${entry.mutual ? '<->' : '->'} ${entry.to_jurisdiction}`
    const want = directions(entry)
    const same = activeTrust.find((t) => directions(t) === want)
    if (same) {
      plan.push({ action: 'unchanged', kind: 'trust', name, id: same.trust_id, entry: at })
      continue
    }
    const sameEnds = activeTrust.find(
      (t) => t.from_jurisdiction === entry.from_jurisdiction && t.to_jurisdiction === entry.to_jurisdiction,
    )
    plan.push({
      action: sameEnds ? 'replace' : 'create',
      kind: 'trust',
      name,
      id: sameEnds?.trust_id ?? null,
      entry: at,
      ...(sameEnds ? { fields: ['mutual'] } : {}),
      ops: () => [
        ...(sameEnds
          ? [
              {
                op: 'trust.revoke' as const,
                body: { from_jurisdiction: entry.from_jurisdiction, to_jurisdiction: entry.to_jurisdiction },
              },
            ]
          : []),
        { op: 'trust.establish', body: entry },
      ],
      idFrom: { op: sameEnds ? 1 : 0, field: 'trust_id' },
    })
  }

  // Every credential of each jurisdiction the manifest issues in, read once (newest first).
  const credentialsOf = new Map<string, Credential[]>()
  const credentialsIn = async (jurisdiction: string): Promise<Credential[]> => {
    if (!existingJurisdictions.has(jurisdiction)) return []
    let found = credentialsOf.get(jurisdiction)
    if (!found) {
      found = await all<Credential>(
        (cursor) => gov.listCredentials({ query: { jurisdiction, limit: 500, cursor } }),
        'credentials',
      )
      credentialsOf.set(jurisdiction, found)
    }
    return found
  }
  for (const [index, entry] of manifest.credentials.entries()) {
    const at = `credentials[${index}]`
    const { ref, ...request } = entry
    const name = `${request.owner_did} ${request.property_data.title_deed}`
    const deed = titleDeedKey(request.property_data.title_deed)
    const ofDeed = (await credentialsIn(request.jurisdiction)).filter(
      (c) => titleDeedKey(c.property_data.title_deed) === deed,
    )
    // One property, one live credential: another owner's active credential of the deed stops apply
    // before it changes anything (the server would refuse the issue with title_deed_in_use).
    const taken = ofDeed.find((c) => c.status === 'active' && c.owner_did !== request.owner_did)
    if (taken) {
      throw new ExitError(
        EXIT.conflict,
        `title deed ${request.property_data.title_deed} of ${request.jurisdiction} is already that of active credential ${taken.credential_id} (owner ${taken.owner_did}); one property has one live credential`,
        'revoke that credential first (`rwa credentials revoke`), or change the manifest',
      )
    }
    const same = ofDeed.filter((c) => c.owner_did === request.owner_did)
    const existing = same.find((c) => c.status === 'active')
    // Revoked for good: reported as revoked, never issued again behind the revocation's back. The
    // list is newest first, so this is the latest revocation.
    const revoked = existing ? undefined : same.find((c) => c.status === 'revoked')
    if (revoked) {
      plan.push({
        action: 'revoked',
        kind: 'credential',
        name,
        id: revoked.credential_id,
        entry: at,
        fields: [
          `revoked at ${revoked.revoked_at}${revoked.revocation_reason ? `: ${revoked.revocation_reason}` : ''}`,
        ],
        ...(ref ? { ref } : {}),
      })
      continue
    }
    if (existing) {
      const differs: string[] = (['address', 'type', 'value_usd'] as const).filter(
        (k) => existing.property_data[k] !== request.property_data[k],
      )
      if (
        request.valid_until !== undefined &&
        Date.parse(request.valid_until) !== Date.parse(existing.valid_until ?? '')
      ) {
        differs.push('valid_until')
      }
      if (differs.length > 0) {
        throw new ExitError(
          EXIT.conflict,
          `credential ${existing.credential_id} (${name}) differs from the manifest in ${differs.join(', ')}; credentials are signed and immutable`,
          'revoke it (`rwa credentials revoke`) and issue the new one with `rwa credentials issue` (apply reports a revoked credential, it never issues it again), or change the manifest',
        )
      }
      plan.push({
        action: 'unchanged',
        kind: 'credential',
        name,
        id: existing.credential_id,
        entry: at,
        ...(ref ? { ref } : {}),
      })
      continue
    }
    plan.push({
      action: 'create',
      kind: 'credential',
      name,
      id: null,
      entry: at,
      ...(ref ? { ref } : {}),
      ops: () => [{ op: 'credentials.issue', body: request }],
      idFrom: { op: 0, field: 'credential_id' },
    })
  }

  const credentialIdOfRef = new Map<string, string | null>()
  for (const change of plan) if (change.ref) credentialIdOfRef.set(change.ref, change.id)

  for (const [index, entry] of manifest.attestations.entries()) {
    const at = `attestations[${index}]`
    const { credential, ...request } = entry
    const credentialId = credential !== undefined ? credentialIdOfRef.get(credential) : request.credential_id
    const name = `${request.type} ${request.subject_did}${credential ? ` (${credential})` : ''}`
    // A credential still to be created cannot have attestations yet.
    const existing =
      credentialId === null || !existingJurisdictions.has(request.jurisdiction)
        ? undefined
        : (
            await all<Attestation>(
              (cursor) =>
                gov.listAttestations({
                  query: {
                    jurisdiction: request.jurisdiction,
                    subject_did: request.subject_did,
                    type: request.type,
                    limit: 500,
                    cursor,
                  },
                }),
              'attestations',
            )
          ).find(
            (a) =>
              a.attester === request.attester &&
              a.credential_id === (credentialId ?? null) &&
              a.evidence === (request.evidence ?? null) &&
              sameInstant(a.valid_until, request.valid_until ?? null),
          )
    if (existing) {
      plan.push({ action: 'unchanged', kind: 'attestation', name, id: existing.attestation_id, entry: at })
      continue
    }
    plan.push({
      action: 'create',
      kind: 'attestation',
      name,
      id: null,
      entry: at,
      ops: (refs) => [
        {
          op: 'attestations.submit',
          body: {
            ...request,
            ...(credential !== undefined ? { credential_id: refs.credential(credential) } : {}),
          },
        },
      ],
      idFrom: { op: 0, field: 'attestation_id' },
    })
  }
  await planTokens(rwa, manifest, plan, credentialIdOfRef)
  return plan
}

/** The rules object a manifest entry asks for: every rule, null when absent. */
function wantedRules(rules: z.infer<typeof manifestRulesSchema> | undefined): TokenRules {
  return {
    max_balance_per_holder: rules?.max_balance_per_holder ?? null,
    max_holders: rules?.max_holders ?? null,
    lockup_until: rules?.lockup_until ? new Date(rules.lockup_until).toISOString() : null,
    max_transfer_amount: rules?.max_transfer_amount ?? null,
    daily_volume_per_holder: rules?.daily_volume_per_holder ?? null,
    min_holding: rules?.min_holding ?? null,
    transfer_windows: rules?.transfer_windows ?? null,
    lockup_days_after_receipt: rules?.lockup_days_after_receipt ?? null,
    max_supply: rules?.max_supply ?? null,
    ...investorRulesOf(rules ?? {}),
  }
}

const sameRules = (a: TokenRules, b: TokenRules) => JSON.stringify(a) === JSON.stringify(b)

/** Plans the tokens: tokenize what is missing, update rules that differ. */
async function planTokens(
  rwa: RwaClient,
  manifest: Manifest,
  plan: Plan,
  credentialIdOfRef: Map<string, string | null>,
): Promise<void> {
  if (manifest.tokens.length === 0) return
  const gov = rwa.governance
  const tokens = await all<Token>((cursor) => gov.listTokens({ query: { limit: 500, cursor } }), 'tokens')
  const credentialIdOf = (entry: Manifest['tokens'][number]) =>
    entry.credential !== undefined ? credentialIdOfRef.get(entry.credential) : entry.credential_id
  // One token a credential: by its id once known (a ref to an existing credential and that id are one),
  // else by the ref of the credential the manifest issues.
  refuseRepeats('tokens', manifest.tokens, (t) => `token of credential ${credentialIdOf(t) ?? t.credential}`)
  for (const [index, entry] of manifest.tokens.entries()) {
    const at = `tokens[${index}]`
    const credentialId = credentialIdOf(entry)
    const name = `${entry.symbol ?? 'token'} of ${entry.credential ?? entry.credential_id}`
    const rules = wantedRules(entry.rules)
    const existing = credentialId ? tokens.find((t) => t.credential_id === credentialId) : undefined
    if (!existing) {
      plan.push({
        action: 'create',
        kind: 'token',
        name,
        id: null,
        entry: at,
        ops: (refs) => [
          {
            op: 'tokens.create',
            body: {
              credential_id:
                entry.credential !== undefined ? refs.credential(entry.credential) : entry.credential_id,
              total_supply: entry.total_supply,
              ...(entry.symbol !== undefined ? { symbol: entry.symbol } : {}),
            },
          },
          ...(sameRules(rules, wantedRules(undefined))
            ? []
            : [{ op: 'tokens.rules' as const, body: { token_id: refs.own(0, 'token_id'), ...rules } }]),
        ],
        idFrom: { op: 0, field: 'token_id' },
      })
      continue
    }
    const fixed = (['total_supply', 'symbol'] as const).filter((k) => (entry[k] ?? null) !== existing[k])
    if (fixed.length > 0) {
      throw new ExitError(
        EXIT.conflict,
        `token ${existing.token_id} (${name}) differs from the manifest in ${fixed.join(', ')}, which are fixed once tokenized`,
        'change the manifest to match the token',
      )
    }
    const differs = !sameRules(rules, existing.rules)
    plan.push({
      action: differs ? 'update' : 'unchanged',
      kind: 'token',
      name,
      id: existing.token_id,
      entry: at,
      ...(differs
        ? {
            fields: ['rules'],
            ops: () => [
              { op: 'tokens.rules', body: { token_id: existing.token_id, ...rules, reason: 'rwa apply' } },
            ],
          }
        : {}),
    })
  }
}
