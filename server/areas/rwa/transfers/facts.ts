import {
  type CanTransferQuery,
  type ProofTransfer,
  TITLE_VERIFICATION,
} from '../../../../src/contract/rwa.js'
import type { AppContext } from '../../../pipeline/context.js'
import type { Executor, RowLock } from '../../../platform/db/queries.js'
import { notFound } from '../../../platform/errors.js'
import { attestationsForTransfer } from '../attestations/queries.js'
import { findCredential } from '../credentials/queries.js'
import { didsSharingIdentity } from '../identities/queries.js'
import { balanceOf, frozenAmong, holderCount, holdingOf } from '../holdings/queries.js'
import { findJurisdictions } from '../jurisdictions/queries.js'
import { rulesFromRow } from '../tokens/from-row.js'
import { tokenOr404 } from '../tokens/queries.js'
import { activeTrustTouching } from '../trust/queries.js'
import { KYC, type KycFacts, type TransferFacts } from './evaluate-transfer.js'
import { externalFacts } from './external-facts.js'
import { investorFacts } from './investor-facts.js'
import { readsIdentities } from './investor-rules.js'
import { approvedVolumeOn } from './queries.js'
import { holdingRuleFacts } from '../rule-counters/counters.js'
import { readsHoldingFacts } from './holding-rules.js'

/*
 * What the evaluations read from the database, gathered in the caller's transaction: the pure
 * functions in evaluate-transfer.ts decide on exactly these facts.
 */

/** A transfer as the evaluation takes it: the token, both sides, the recipient and how much. */
export type TransferInput = CanTransferQuery & { token_id: string }

/**
 * The organization's jurisdictions `ids` (each must exist: 404), with their requirement lists. A write
 * that puts units there takes `key share`, so a concurrent removal of the jurisdiction waits for it.
 */
export async function jurisdictionsOr404(trx: Executor, orgId: string, ids: string[], lock?: RowLock) {
  const found = new Map(
    (await findJurisdictions(trx, orgId, ids, lock)).map((j) => [j.jurisdiction_id, j] as const),
  )
  for (const id of ids) if (!found.has(id)) throw notFound('jurisdiction', id)
  const requirements = new Map(
    [...found].map(([id, j]) => [id, JSON.parse(j.transfer_requirements) as string[]] as const),
  )
  const externalOnly = new Map(
    [...found].map(([id, j]) => [id, JSON.parse(j.external_only) as string[]] as const),
  )
  // jurisdiction_id → issuer_did in id order, as a proof names them (record.ts): an issuer_did never
  // changes, so the proof of a transfer between these needs not read them again.
  const issuers: Record<string, string> = {}
  for (const id of [...found.keys()].sort()) issuers[id] = found.get(id)!.issuer_did
  return { requirements, externalOnly, issuers }
}

/**
 * The facts of a transfer's evaluation: the token with its credential and rules, both jurisdictions'
 * requirements, the ledger around sender and recipient, the active trust and the candidate
 * attestations. 404 for an unknown token or jurisdiction. A transfer that will move units passes
 * `forTransfer`: the token's row is locked until its transaction ends, which serializes the token's
 * transfers and agent operations across instances, so the ledger read here is still true when the
 * units move; and the jurisdictions take `key share`.
 */
export async function transferFacts(
  trx: Executor,
  orgId: string,
  input: TransferInput,
  now: string,
  forTransfer = false,
  ctx?: AppContext,
): Promise<{ facts: TransferFacts; transfer: ProofTransfer; issuers: Record<string, string> }> {
  const token = await tokenOr404(trx, orgId, input.token_id, forTransfer ? 'update' : undefined)
  const from = input.from_jurisdiction
  const to = input.to_jurisdiction
  const ids = [...new Set([from, to])]
  const { requirements, externalOnly, issuers } = await jurisdictionsOr404(
    trx,
    orgId,
    ids,
    forTransfer ? 'key share' : undefined,
  )
  const sender = input.sender_did ?? token.owner_did
  const recipient = input.recipient_did

  const credential = await findCredential(trx, orgId, token.credential_id)
  if (!credential) throw new Error(`token ${token.token_id} has no credential ${token.credential_id}`)
  const personal = [...new Set([...requirements.get(from)!, ...requirements.get(to)!])].filter(
    (r) => r !== TITLE_VERIFICATION,
  )
  const trust = await activeTrustTouching(trx, orgId, ids)
  // An attestation about any DID of the recipient's identity counts for it (docs/identities.md): one
  // query whatever the identity's size, none more for a DID of no identity.
  const recipientDids = personal.length === 0 ? [recipient] : await didsSharingIdentity(trx, orgId, recipient)
  const attestations = await attestationsForTransfer(
    trx,
    orgId,
    recipientDids,
    personal,
    token.credential_id,
    TITLE_VERIFICATION,
  )
  const rules = rulesFromRow(token.rules)
  const frozen = await frozenAmong(trx, token.token_id, [sender, recipient])
  const recipientInTarget = await holdingOf(trx, token.token_id, recipient, to)
  const senderHolding = await holdingOf(trx, token.token_id, sender, from)
  const recipientBalance = await balanceOf(trx, token.token_id, recipient)
  const investors = await investorFacts(
    trx,
    orgId,
    rules,
    {
      token_id: token.token_id,
      from_jurisdiction: from,
      to_jurisdiction: to,
      sender_did: sender,
      recipient_did: recipient,
      amount: input.amount,
    },
    // The supply now (every holding's sum, moved by mint and burn).
    Number(token.supply),
    // What is read already: the recipient's DIDs (when read for its attestations), its balance.
    {
      recipient_dids: personal.length === 0 ? undefined : recipientDids,
      recipient_balance: recipientBalance,
    },
  )
  const facts: TransferFacts = {
    token,
    credential,
    from: {
      jurisdiction_id: from,
      transfer_requirements: requirements.get(from)!,
      external_only: externalOnly.get(from)!,
    },
    to: {
      jurisdiction_id: to,
      transfer_requirements: requirements.get(to)!,
      external_only: externalOnly.get(to)!,
    },
    sender_did: sender,
    recipient_did: recipient,
    recipient_dids: recipientDids,
    amount: input.amount,
    ledger: {
      sender_holding: senderHolding,
      sender_frozen: frozen.has(sender),
      recipient_frozen: frozen.has(recipient),
      recipient_balance: recipientBalance,
      target_holders: await holderCount(trx, token.token_id, to),
      recipient_holds_in_target: recipientInTarget.amount > 0,
      sender_volume_today: await approvedVolumeOn(trx, token.token_id, sender, now.slice(0, 10)),
    },
    rules,
    investors,
    trust: trust.map((t) => ({ ...t, mutual: Number(t.mutual) === 1 })),
    attestations,
    // Trusted issuers' attestations of the recipient (with the context that fetches their status lists).
    external: ctx ? await externalFacts(ctx, trx, orgId, recipientDids, personal, now) : [],
    now,
    ...(readsHoldingFacts(rules)
      ? {
          holding: await holdingRuleFacts(
            trx,
            orgId,
            rules,
            { token_id: token.token_id, sender_did: sender, from_jurisdiction: from, amount: input.amount },
            senderHolding.amount,
            Date.parse(now),
            // The sender's identity, when the rules that read identities read it.
            readsIdentities(rules) ? investors.sender_identity : undefined,
          ),
        }
      : {}),
  }
  const transfer = {
    from_jurisdiction: from,
    to_jurisdiction: to,
    sender_did: sender,
    recipient_did: recipient,
    amount: input.amount,
  }
  return { facts, transfer, issuers }
}

/** The facts of an agent operation's identity check: `kyc` of `subjectDid` in `jurisdictions`. */
export async function kycFacts(
  trx: Executor,
  orgId: string,
  credentialId: string,
  subjectDid: string,
  jurisdictions: string[],
  now: string,
  ctx?: AppContext,
): Promise<KycFacts> {
  const trust = await activeTrustTouching(trx, orgId, jurisdictions)
  const subjectDids = await didsSharingIdentity(trx, orgId, subjectDid)
  const attestations = await attestationsForTransfer(
    trx,
    orgId,
    subjectDids,
    [KYC],
    credentialId,
    TITLE_VERIFICATION,
  )
  return {
    subject_did: subjectDid,
    subject_dids: subjectDids,
    credential_id: credentialId,
    jurisdictions,
    trust: trust.map((t) => ({ ...t, mutual: Number(t.mutual) === 1 })),
    attestations,
    external: ctx ? await externalFacts(ctx, trx, orgId, subjectDids, [KYC], now) : [],
    now,
  }
}
