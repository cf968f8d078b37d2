import { existsSync } from 'node:fs'
import { join } from 'node:path'
import type { RwaClient } from '../client/index.js'
import { operationClient } from '../client/operations.js'
import { issuerRoutes } from '../contract/issuers-routes.js'
import { type ServedIssuer, serveIssuerDir, updateIssuer } from '../dev-issuer/store.js'

/*
 * The trusted-issuer part of `rwa sandbox --demo` (docs/issuers.md, "Accepting KYC from a provider"):
 * the sandbox's own dev issuer (`rwa dev issuer`, its directory beside the sandbox's database) is
 * registered as a trusted issuer of kyc in US and SG; erin gets aml and investor_qualification from
 * the organization itself and kyc from that provider alone, a credential issued by it and submitted;
 * a transfer to erin is then approved on it.
 */

export const DEMO_ISSUER_ID = 'demo-kyc'
export const DEMO_HOLDER = 'did:web:acme:erin'

/** What the demo's issuer part made, for the sandbox to print. */
export interface DemoIssuerSeed {
  issuer_id: string
  did: string
  document_url: string
  /** The dev issuer's directory (`rwa dev issuer … --dir`, or RWA_DEV_ISSUER_DIR). */
  dir: string
  seeded: boolean
  /** The dev issuer's id of the credential (`rwa dev issuer revoke vc-1`). */
  credential_id: string | null
  attestation_id: string | null
  transfer_id: string | null
  transfer_status: string | null
  /** The kyc check of the transfer, naming the provider. */
  kyc_reason: string | null
}

/**
 * Serves the dev issuer of `dir`, on the port it had (a free one the first time, or when that one is
 * taken now: its DID changes then, and a demo seeded before no longer resolves it).
 */
export async function startDemoIssuer(dir: string): Promise<ServedIssuer> {
  if (!existsSync(join(dir, 'issuer.json'))) return serveIssuerDir(dir, 0)
  return serveIssuerDir(dir, undefined).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'EADDRINUSE') return serveIssuerDir(dir, 0)
    throw error
  })
}

/** Registers the issuer, issues and submits erin's kyc, and requests a transfer to erin. */
export async function seedDemoIssuer(
  rwa: RwaClient,
  served: ServedIssuer,
  dir: string,
  token_id: string,
): Promise<DemoIssuerSeed> {
  const issuers = operationClient(rwa.http, issuerRoutes)
  const gov = rwa.governance
  const base = {
    issuer_id: DEMO_ISSUER_ID,
    did: served.issuer.did,
    document_url: served.issuer.documentUrl,
    dir,
  }
  const existing = (await issuers.listIssuers({ query: {} })).data.issuers.find(
    (i) => i.issuer_id === DEMO_ISSUER_ID,
  )
  if (existing) {
    return {
      ...base,
      seeded: false,
      credential_id: null,
      attestation_id: null,
      transfer_id: null,
      transfer_status: null,
      kyc_reason: null,
    }
  }
  await issuers.registerIssuer({
    body: {
      issuer_id: DEMO_ISSUER_ID,
      name: 'Demo KYC (rwa dev issuer)',
      did: served.issuer.did,
      requirements: { kyc: ['KYCCredential'] },
      jurisdictions: ['US', 'SG'],
    },
  })
  for (const [jurisdiction, type, attester] of [
    ['US', 'aml', 'ComplyAdvantage'],
    ['SG', 'investor_qualification', 'DBS Private Bank'],
  ] as const) {
    await gov.submitAttestation({
      body: { jurisdiction, subject_did: DEMO_HOLDER, type, attester, evidence: `demo:${type}` },
    })
  }
  const issued = await updateIssuer(dir, async (issuer) => {
    const result = await issuer!.issue({
      subject: DEMO_HOLDER,
      types: ['KYCCredential'],
      status: ['revocation', 'suspension'],
    })
    return { issuer: issuer!, result }
  })
  const attestation = (await gov.submitAttestation({ body: { vc_jwt: issued.vc_jwt } })).data
  const transfer = (
    await gov.requestTransfer({
      body: {
        token_id,
        from_jurisdiction: 'US',
        to_jurisdiction: 'SG',
        recipient_did: DEMO_HOLDER,
        amount: 50,
      },
    })
  ).data
  const kyc = transfer.compliance_details.checks.find(
    (c) => c.requirement === 'kyc' && c.evidence === attestation.attestation_id,
  )
  return {
    ...base,
    seeded: true,
    credential_id: issued.record.id,
    attestation_id: attestation.attestation_id,
    transfer_id: transfer.transfer_id,
    transfer_status: transfer.status,
    kyc_reason: kyc?.reason ?? null,
  }
}
