import type { RwaClient } from '../client/index.js'
import type { Transfer } from '../contract/rwa.js'
import { batchSender, executePlan } from './manifest/execute.js'
import { type ManifestInput, manifestSchema } from './manifest/parse.js'
import { planManifest } from './manifest/plan.js'

/**
 * The example `rwa sandbox --demo` seeds through the API: three jurisdictions with their own transfer
 * requirements, trust between them, two property credentials, the attestations that make one transfer
 * pass and leave another short, a token, and those two transfers.
 */
export const DEMO_MANIFEST: ManifestInput = {
  jurisdictions: [
    {
      jurisdiction_id: 'US',
      name: 'United States',
      regulatory_body: 'Securities and Exchange Commission',
      frameworks: ['Securities Act of 1933', 'Regulation D'],
      transfer_requirements: ['kyc', 'aml'],
    },
    {
      jurisdiction_id: 'SG',
      name: 'Singapore',
      regulatory_body: 'Monetary Authority of Singapore',
      frameworks: ['Securities and Futures Act 2001'],
      transfer_requirements: ['kyc', 'investor_qualification'],
    },
    {
      jurisdiction_id: 'CH',
      name: 'Switzerland',
      regulatory_body: 'FINMA',
      frameworks: ['DLT Act 2021'],
      transfer_requirements: ['kyc', 'aml', 'title_verification'],
    },
  ],
  trust: [
    { from_jurisdiction: 'US', to_jurisdiction: 'SG', mutual: true },
    { from_jurisdiction: 'US', to_jurisdiction: 'CH' },
  ],
  credentials: [
    {
      ref: 'austin-office',
      jurisdiction: 'US',
      owner_did: 'did:web:acme:alice',
      property_data: {
        address: '600 Congress Ave, Austin, TX 78701',
        type: 'commercial',
        value_usd: 48_500_000,
        title_deed: 'TX-TRAVIS-2019-004417',
      },
    },
    {
      ref: 'zurich-residence',
      jurisdiction: 'CH',
      owner_did: 'did:web:acme:dora',
      property_data: {
        address: 'Bahnhofstrasse 45, 8001 Zurich',
        type: 'residential',
        value_usd: 12_750_000,
        title_deed: 'CH-ZH-GB-88213',
      },
    },
  ],
  attestations: [
    {
      jurisdiction: 'US',
      subject_did: 'did:web:acme:bob',
      type: 'kyc',
      attester: 'Onfido',
      evidence: 'onfido:chk_7f3a',
    },
    {
      jurisdiction: 'US',
      subject_did: 'did:web:acme:bob',
      type: 'aml',
      attester: 'ComplyAdvantage',
      evidence: 'ca:scr_1120',
    },
    {
      jurisdiction: 'SG',
      subject_did: 'did:web:acme:bob',
      type: 'investor_qualification',
      attester: 'DBS Private Bank',
      evidence: 'accredited-investor-letter-2026-031',
    },
    {
      jurisdiction: 'US',
      subject_did: 'did:web:acme:carol',
      type: 'kyc',
      attester: 'Onfido',
      evidence: 'onfido:chk_9b21',
    },
    {
      jurisdiction: 'CH',
      subject_did: 'did:web:acme:dora',
      type: 'title_verification',
      attester: 'Grundbuchamt Zurich',
      credential: 'zurich-residence',
    },
  ],
}

/** What the demo created, for the sandbox to print. */
export interface DemoSeed {
  seeded: boolean
  token_id: string
  approved_transfer_id: string | null
  rejected_transfer_id: string | null
}

/** Seeds the demo through the API. On a database that already has it, changes nothing. */
export async function seedDemo(rwa: RwaClient): Promise<DemoSeed> {
  const plan = await planManifest(rwa, manifestSchema.parse(DEMO_MANIFEST))
  const changes = await executePlan(plan, batchSender(rwa))
  const office = changes.find((c) => c.kind === 'credential' && c.name.endsWith('TX-TRAVIS-2019-004417'))!
  const gov = rwa.governance
  const existing = (await gov.listTokens({ query: { owner_did: 'did:web:acme:alice' } })).data.tokens.find(
    (t) => t.credential_id === office.id,
  )
  if (existing)
    return {
      seeded: false,
      token_id: existing.token_id,
      approved_transfer_id: null,
      rejected_transfer_id: null,
    }

  const token = (
    await gov.tokenize({ body: { credential_id: office.id!, total_supply: 1000, symbol: 'ATX600' } })
  ).data
  const transfer = async (recipient_did: string, amount: number): Promise<Transfer> =>
    (
      await gov.requestTransfer({
        body: {
          token_id: token.token_id,
          from_jurisdiction: 'US',
          to_jurisdiction: 'SG',
          recipient_did,
          amount,
        },
      })
    ).data
  // Bob has kyc and aml (US) and investor_qualification (SG): approved. Carol has only kyc: rejected.
  const approved = await transfer('did:web:acme:bob', 250)
  const rejected = await transfer('did:web:acme:carol', 100)
  return {
    seeded: true,
    token_id: token.token_id,
    approved_transfer_id: approved.transfer_id,
    rejected_transfer_id: rejected.transfer_id,
  }
}
