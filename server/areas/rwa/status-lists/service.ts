import { createHash, randomBytes } from 'node:crypto'
import { decodeJwt } from 'jose'
import type { CredentialStatusEntry, SignedCredentialStatus } from '../../../../src/contract/rwa.js'
import { RWA_BASE } from '../../../../src/contract/rwa-routes.js'
import {
  emptyBitstring,
  encodeStatusList,
  STATUS_LIST_MIN_BITS,
  setStatusBit,
} from '../../../../src/proof/status-list.js'
import type { AppContext } from '../../../pipeline/context.js'
import { keepRecent, useRecent } from '../../../platform/caches/recently-used.js'
import type { Executor } from '../../../platform/db/queries.js'
import { notFound } from '../../../platform/errors.js'
import { matchesEtag } from '../../../platform/http/etag.js'
import { VC_CONTEXT } from '../issuance.js'
import { findJurisdiction } from '../jurisdictions/queries.js'
import { permute } from './permutation.js'
import {
  clearSuspensionBit,
  findStatusList,
  insertStatusList,
  linkSuspensionList,
  lockStatusList,
  openStatusList,
  revokedIndexes,
  setStatusListBit,
  setSuspensionBit,
  suspendedIndexes,
  takeStatusEntry,
} from './queries.js'

/*
 * Revocation any verifier can check (docs/governance.md, "Revocation any verifier can check"): every
 * credential and attestation a jurisdiction signs gets an entry in that jurisdiction's W3C Bitstring Status
 * List; revoking sets the entry's bit in the same transaction; the list is served, signed by the
 * jurisdiction, without a key. Each revocation list has a sibling suspension list (docs/governance.md,
 * "Suspension"): an entry has the same index in both, and a suspension bit is cleared on reinstatement.
 */

/** Where a list is served. */
export const statusListUrl = (ctx: AppContext, listId: string): string =>
  `${ctx.publicUrl()}${RWA_BASE}/status/${listId}`

/** An entry of a status list: where it is stored, and the `credentialStatus` a VC carries for it. */
export interface AssignedEntry {
  listId: string
  index: number
  /** A revocation entry, then a suspension entry at the same index of the sibling list. */
  credentialStatus: [CredentialStatusEntry, CredentialStatusEntry]
}

const entryOf = (
  ctx: AppContext,
  listId: string,
  index: number,
  purpose: CredentialStatusEntry['statusPurpose'],
): CredentialStatusEntry => {
  const url = statusListUrl(ctx, listId)
  return {
    id: `${url}#${index}`,
    type: 'BitstringStatusListEntry',
    statusPurpose: purpose,
    statusListIndex: String(index),
    statusListCredential: url,
  }
}

type ListRow = { list_id: string; org_id: string; jurisdiction_id: string; capacity: number }

/**
 * The sibling suspension list of a revocation list, made now when it has none (a list from before
 * suspension lists). Runs with the revocation list's row locked (by the update that took an entry, or
 * by the caller's), so two transactions never make two siblings.
 */
async function suspensionListOf(
  ctx: AppContext,
  trx: Executor,
  list: ListRow,
  known: string | null,
  now: string,
): Promise<string> {
  if (known !== null) return known
  const listId = ctx.ids.next('sl')
  await insertStatusList(trx, {
    list_id: listId,
    org_id: list.org_id,
    jurisdiction_id: list.jurisdiction_id,
    capacity: Number(list.capacity),
    used: 0,
    perm_key: randomBytes(32).toString('base64'),
    version: 0,
    created_at: now,
    updated_at: now,
    purpose: 'suspension',
  })
  await linkSuspensionList(trx, list.list_id, listId)
  return listId
}

/**
 * Assigns the next entry of the jurisdiction's open status list (a new list when none has room), at
 * the list's pseudo-random index for that ordinal, and the same index of its suspension list. Runs in
 * the issuing transaction.
 */
export async function assignStatusEntry(
  ctx: AppContext,
  trx: Executor,
  orgId: string,
  jurisdictionId: string,
  now: string,
): Promise<AssignedEntry> {
  for (;;) {
    let list = await openStatusList(trx, orgId, jurisdictionId)
    if (!list) {
      list = {
        list_id: ctx.ids.next('sl'),
        org_id: orgId,
        jurisdiction_id: jurisdictionId,
        capacity: STATUS_LIST_MIN_BITS,
        used: 0,
        perm_key: randomBytes(32).toString('base64'),
        version: 0,
        created_at: now,
        updated_at: now,
        purpose: 'revocation',
        suspension_list_id: null,
      }
      await insertStatusList(trx, list)
    }
    const taken = await takeStatusEntry(trx, list.list_id)
    // Another issuer took the last entry in between: try the next list.
    if (taken === undefined) continue
    const index = permute(list.perm_key, taken.ordinal, Number(list.capacity))
    const suspensionListId = await suspensionListOf(ctx, trx, list, taken.suspensionListId, now)
    return {
      listId: list.list_id,
      index,
      credentialStatus: [
        entryOf(ctx, list.list_id, index, 'revocation'),
        entryOf(ctx, suspensionListId, index, 'suspension'),
      ],
    }
  }
}

/**
 * Sets (`suspended`) or clears the suspension bit of the entry at `index` of revocation list `listId`,
 * in its sibling suspension list (made now for a list from before suspension lists: a verifier that
 * knows the list reads the bit, though the VC names only its revocation entry). Takes the revocation
 * list's row lock first.
 */
export async function setSuspension(
  ctx: AppContext,
  trx: Executor,
  listId: string,
  index: number,
  suspended: boolean,
  now: string,
): Promise<void> {
  const list = await lockStatusList(trx, listId)
  if (!list) throw new Error(`status list ${listId} is missing`)
  const suspensionListId = await suspensionListOf(ctx, trx, list, list.suspension_list_id, now)
  if (suspended) await setSuspensionBit(trx, suspensionListId, index, now)
  else await clearSuspensionBit(trx, suspensionListId, index, now)
}

/** Sets the entry's bit: the credential is revoked for every verifier from the next fetch of the list. */
export function revokeStatusEntry(trx: Executor, listId: string, index: number, now: string): Promise<void> {
  return setStatusListBit(trx, listId, index, now)
}

/**
 * A record's status as the API reads it: `revoked` for good, `suspended` while suspended (its stored
 * status stays `active` then: see migration 0025), else `active`.
 */
export function statusOfRow(row: {
  status: string
  suspended_at?: string | null
}): 'active' | 'suspended' | 'revoked' {
  if (row.status === 'revoked') return 'revoked'
  return row.suspended_at ? 'suspended' : 'active'
}

/** The `credentialStatus` inside a signed VC, or null for one issued before status lists. */
export function credentialStatusOf(vcJwt: string): SignedCredentialStatus | null {
  const status = decodeJwt(vcJwt).credentialStatus as SignedCredentialStatus | undefined
  return status ?? null
}

/**
 * A served list is re-signed at least this often, so its `validFrom` is never older
 * (docs/verification.md, "Status lists").
 */
export const STATUS_LIST_RESIGN_MS = 12 * 60 * 60 * 1000

/**
 * How many signed lists a process keeps (each under a kilobyte: 8 MB at most); the least recently
 * served is forgotten first. Lists fetched in turn past this limit are each signed again at every fetch
 * (docs/performance.md, "Ninth pass: the signed status lists kept").
 */
export const SIGNED_LISTS_KEPT = 8192

/**
 * The signing time of a list as served at `now`: its last change, or the start of the current 12-hour
 * period (00:00 or 12:00 UTC) when that is later. Derived from the data and the clock alone, so every
 * instance serves the same bytes (Ed25519 signatures are deterministic) and the same ETag.
 */
export function statusListSignedAt(updatedAt: string, now: number): string {
  const period = Math.floor(now / STATUS_LIST_RESIGN_MS) * STATUS_LIST_RESIGN_MS
  return new Date(Math.max(Date.parse(updatedAt), period)).toISOString()
}

/** The ETag of a list as served now: it changes with each revocation, each re-signing and the public URL. */
export const statusListEtag = (
  ctx: AppContext,
  list: { list_id: string; version: number },
  signedAt: string,
): string =>
  `"${list.list_id}.${Number(list.version)}.${Date.parse(signedAt)}.${createHash('sha256').update(ctx.publicUrl()).digest('hex').slice(0, 8)}"`

/** The lists this process signed, by context (one per app), each with the ETag it was signed for. */
const signedLists = new WeakMap<AppContext, Map<string, { etag: string; jwt: string }>>()

function signedListsOf(ctx: AppContext): Map<string, { etag: string; jwt: string }> {
  let lists = signedLists.get(ctx)
  if (!lists) {
    lists = new Map()
    signedLists.set(ctx, lists)
  }
  return lists
}

/**
 * The status list credential as served: a VC-JWT (`BitstringStatusListCredential`) signed by the
 * issuing jurisdiction, its `encodedList` the GZIP + base64url bitstring with the multibase `u` prefix.
 * Signed once per change and per 12-hour period (`statusListSignedAt`) and served from memory in
 * between: a request reads only the list's row (one primary-key lookup) to learn its version.
 */
export async function statusListCredential(
  ctx: AppContext,
  listId: string,
  ifNoneMatch: string | undefined,
): Promise<{ etag: string; jwt: string | null }> {
  const list = await findStatusList(ctx.db, listId)
  if (!list) throw notFound('status_list', listId)
  const signedAt = statusListSignedAt(list.updated_at, ctx.clock.now())
  const etag = statusListEtag(ctx, list, signedAt)
  if (matchesEtag(ifNoneMatch, etag)) return { etag, jwt: null }
  const cache = signedListsOf(ctx)
  const cached = useRecent(cache, listId)
  if (cached?.etag === etag) return cached
  const jwt = await signStatusList(ctx, list, signedAt)
  keepRecent(cache, listId, { etag, jwt }, SIGNED_LISTS_KEPT)
  return { etag, jwt }
}

type StatusListRow = NonNullable<Awaited<ReturnType<typeof findStatusList>>>

async function signStatusList(ctx: AppContext, list: StatusListRow, signedAt: string): Promise<string> {
  const listId = list.list_id
  const jurisdiction = await findJurisdiction(ctx.db, list.org_id, list.jurisdiction_id)
  if (!jurisdiction) throw new Error(`status list ${listId} has no jurisdiction ${list.jurisdiction_id}`)
  const bits = emptyBitstring(Number(list.capacity))
  const purpose = list.purpose === 'suspension' ? 'suspension' : 'revocation'
  const set = purpose === 'suspension' ? suspendedIndexes : revokedIndexes
  for (const index of await set(ctx.db, listId)) setStatusBit(bits, index)
  const url = statusListUrl(ctx, listId)
  return ctx.signingKeys.signCredential(jurisdiction, {
    id: url,
    subject: `${url}#list`,
    issuedAt: Date.parse(signedAt),
    '@context': VC_CONTEXT,
    type: ['VerifiableCredential', 'BitstringStatusListCredential'],
    issuer: jurisdiction.issuer_did,
    validFrom: signedAt,
    credentialSubject: {
      id: `${url}#list`,
      type: 'BitstringStatusList',
      statusPurpose: purpose,
      encodedList: encodeStatusList(bits),
    },
  })
}
