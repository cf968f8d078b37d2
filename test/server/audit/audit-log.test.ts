import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { OperationSpec } from '../../../src/contract/operation.js'
import { ROUTES } from '../../../src/contract/routes.js'
import {
  buildWorld,
  expectStatus,
  OWNER,
  RECIPIENT,
  SG,
  transferBody,
  US,
  type World,
} from '../../support/governance.js'
import { createHarness, type Harness } from '../../support/harness.js'
import { TestIssuer } from '../../support/test-issuer.js'

/*
 * Every write records exactly one audit event, with its actor, action and request id, in its own
 * transaction; a refused write records none. Generated over the route table: each write operation
 * needs a scenario here (a call that succeeds and one its rules refuse), and a write added to the table
 * without one fails the first test.
 */

interface Call {
  method: string
  path: string
  body?: unknown
}

interface Scenario {
  /** The organization whose log the event is in, when not the one acted on (the service's own keys: `admin`). */
  logOrg?: string
  /** What the call needs beyond the usual world (buildWorld), made with the org's key. */
  prepare?: (h: Harness, w: World) => Promise<void>
  ok: (w: World) => Call
  refused: (w: World) => Call
  /**
   * The events the successful call records besides its own: approving an approval records the approved
   * operation's event too (with the approving key as its actor).
   */
  alsoRecords?: string[]
}

/** An approval of a forced transfer, requested by an agent key of the org (not the org's key, which approves). */
const requestForced = async (h: Harness, w: World, orgId: string) => {
  await expectStatus(
    h.request('PUT', '/console/rwa/policy', { key: w.key, body: { require_approval: ['forced_transfer'] } }),
    200,
  )
  const agent = await expectStatus(
    h.post('/console/billing/keys', { org_id: orgId, name: 'agent', roles: ['agent'] }),
    201,
  )
  const pending = await expectStatus(
    h.post(
      `${T(w)}/forced-transfer`,
      {
        from_did: OWNER,
        to_did: RECIPIENT,
        from_jurisdiction: 'US',
        to_jurisdiction: 'US',
        amount: 10,
        reason: 'court order',
      },
      { key: agent.api_key },
    ),
    202,
  )
  ;(w as World & { approval: string }).approval = pending.approval_id
}
const APPROVAL = (w: World) => `/console/rwa/approvals/${(w as World & { approval: string }).approval}`
const UNKNOWN_APPROVAL = '/console/rwa/approvals/apr_01M8420DESXZV8X28W2ZQWTKA9'

const T = (w: World) => `/console/rwa/tokens/${w.tokenId}`

/** A trusted issuer by its did:key (nothing to fetch), trusted for kyc in US. */
const ISSUER = {
  issuer_id: 'acme-kyc',
  name: 'Acme KYC',
  did: 'did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp',
  requirements: { kyc: ['KYCCredential'] },
  jurisdictions: ['US'],
}
const registerIssuer = (h: Harness, w: World, body: Record<string, unknown> = ISSUER) =>
  expectStatus(h.post('/console/rwa/issuers', body, { key: w.key }), 201)
const IDENTITY = { identity_id: 'ivy', dids: ['did:web:acme:ivy'], country: 'US' }
const createIdentity = (h: Harness, w: World) =>
  expectStatus(h.post('/console/rwa/identities', IDENTITY, { key: w.key }), 201)
/** The did:web issuers the scenarios started, stopped at the end. */
const providers: TestIssuer[] = []
const FREEZE = { holder_did: OWNER, reason: 'court order' }

/** A webhook endpoint made in `prepare`, with a delivery of the organization's latest event to it. */
type WebhookWorld = World & { webhookId: string; eventId: string; deliveryId: string }
const HOOK_URL = 'https://1.1.1.1/hooks'
const prepareWebhook = async (h: Harness, w: World) => {
  const made = await expectStatus(
    h.post('/console/webhooks', { url: HOOK_URL, events: ['*'] }, { key: w.key }),
    201,
  )
  const events = await expectStatus(h.get('/console/events', { key: w.key, query: { limit: 1 } }), 200)
  const resent = await expectStatus(
    h.post(`/console/events/${events.events[0].id}/resend`, {}, { key: w.key }),
    200,
  )
  Object.assign(w, {
    webhookId: made.webhook_id,
    eventId: events.events[0].id,
    deliveryId: resent.deliveries[0].delivery_id,
  })
}
const UNKNOWN_WH = 'wh_01M8420DESXZV8X28W2ZQWTKB0'

const SCENARIOS: Record<string, Scenario> = {
  createWebhook: {
    ok: () => ({
      method: 'POST',
      path: '/console/webhooks',
      body: { url: HOOK_URL, events: ['transfer.*'] },
    }),
    refused: () => ({
      method: 'POST',
      path: '/console/webhooks',
      body: { url: 'https://169.254.169.254/', events: ['transfer.*'] },
    }),
  },
  deleteWebhook: {
    prepare: prepareWebhook,
    ok: (w) => ({ method: 'DELETE', path: `/console/webhooks/${(w as WebhookWorld).webhookId}` }),
    refused: () => ({ method: 'DELETE', path: `/console/webhooks/${UNKNOWN_WH}` }),
  },
  rotateWebhookSecret: {
    prepare: prepareWebhook,
    ok: (w) => ({
      method: 'POST',
      path: `/console/webhooks/${(w as WebhookWorld).webhookId}/rotate-secret`,
      body: {},
    }),
    refused: () => ({ method: 'POST', path: `/console/webhooks/${UNKNOWN_WH}/rotate-secret`, body: {} }),
  },
  retryWebhookDelivery: {
    prepare: prepareWebhook,
    ok: (w) => ({
      method: 'POST',
      path: `/console/webhooks/${(w as WebhookWorld).webhookId}/deliveries/${(w as WebhookWorld).deliveryId}/retry`,
      body: {},
    }),
    refused: (w) => ({
      method: 'POST',
      path: `/console/webhooks/${(w as WebhookWorld).webhookId}/deliveries/dlv_01M8420DESXZV8X28W2ZQWTKC1/retry`,
      body: {},
    }),
  },
  resendEvent: {
    prepare: prepareWebhook,
    ok: (w) => ({ method: 'POST', path: `/console/events/${(w as WebhookWorld).eventId}/resend`, body: {} }),
    refused: () => ({
      method: 'POST',
      path: '/console/events/evt_01M8420DESXZV8X28W2ZQWTKA9/resend',
      body: {},
    }),
  },
  createKey: {
    ok: () => ({ method: 'POST', path: '/console/billing/keys', body: { name: 'ci' } }),
    refused: () => ({
      method: 'POST',
      path: '/console/billing/keys',
      body: { name: 'ci', org_id: 'globex' },
    }),
  },
  revokeKey: {
    prepare: async (h, w) => {
      const spare = await expectStatus(
        h.post('/console/billing/keys', { name: 'spare' }, { key: w.key }),
        201,
      )
      ;(w as World & { spare: string }).spare = spare.key_id
    },
    ok: (w) => ({
      method: 'DELETE',
      path: `/console/billing/keys/${(w as World & { spare: string }).spare}`,
    }),
    refused: () => ({ method: 'DELETE', path: '/console/billing/keys/key_01M80QDRFAQSS9ZK6YPFRFRQA8' }),
  },
  rerollKey: {
    prepare: async (h, w) => {
      const spare = await expectStatus(
        h.post('/console/billing/keys', { name: 'spare', roles: ['transfers'] }, { key: w.key }),
        201,
      )
      ;(w as World & { spare: string }).spare = spare.key_id
    },
    ok: (w) => ({
      method: 'POST',
      path: `/console/billing/keys/${(w as World & { spare: string }).spare}/reroll`,
      body: { overlap_seconds: 60 },
    }),
    refused: () => ({
      method: 'POST',
      path: '/console/billing/keys/key_01M80QDRFAQSS9ZK6YPFRFRQA8/reroll',
      body: {},
    }),
  },
  rotateSigningKey: {
    logOrg: 'admin',
    ok: () => ({ method: 'POST', path: '/console/rwa/signing-keys/rotate', body: { reason: 'yearly' } }),
    refused: () => ({ method: 'POST', path: '/console/rwa/signing-keys/rotate', body: { purpose: 'log' } }),
  },
  updateSubscription: {
    ok: () => ({
      method: 'POST',
      path: '/console/billing/subscription',
      body: { org_id: 'globex', tier: 'pro' },
    }),
    refused: () => ({
      method: 'POST',
      path: '/console/billing/subscription',
      body: { org_id: 'admin', tier: 'pro' },
    }),
  },
  establishTrust: {
    prepare: async (h, w) => {
      await expectStatus(
        h.post('/console/rwa/jurisdictions', { ...SG, jurisdiction_id: 'JP' }, { key: w.key }),
        201,
      )
    },
    ok: () => ({
      method: 'POST',
      path: '/console/rwa/jurisdictions/trust',
      body: { from_jurisdiction: 'US', to_jurisdiction: 'JP' },
    }),
    refused: () => ({
      method: 'POST',
      path: '/console/rwa/jurisdictions/trust',
      body: { from_jurisdiction: 'US', to_jurisdiction: 'SG' },
    }),
  },
  revokeTrust: {
    ok: () => ({
      method: 'DELETE',
      path: '/console/rwa/jurisdictions/trust',
      body: { from_jurisdiction: 'US', to_jurisdiction: 'SG' },
    }),
    refused: () => ({
      method: 'DELETE',
      path: '/console/rwa/jurisdictions/trust',
      body: { from_jurisdiction: 'SG', to_jurisdiction: 'US' },
    }),
  },
  registerJurisdiction: {
    ok: () => ({
      method: 'POST',
      path: '/console/rwa/jurisdictions',
      body: { ...SG, jurisdiction_id: 'JP' },
    }),
    refused: () => ({ method: 'POST', path: '/console/rwa/jurisdictions', body: US }),
  },
  updateJurisdiction: {
    ok: () => {
      const { jurisdiction_id: _, ...rest } = US
      return { method: 'PUT', path: '/console/rwa/jurisdictions/US', body: { ...rest, name: 'USA' } }
    },
    refused: () => {
      const { jurisdiction_id: _, ...rest } = US
      return { method: 'PUT', path: '/console/rwa/jurisdictions/XX', body: rest }
    },
  },
  removeJurisdiction: {
    prepare: async (h, w) => {
      await expectStatus(
        h.post('/console/rwa/jurisdictions', { ...SG, jurisdiction_id: 'JP' }, { key: w.key }),
        201,
      )
    },
    ok: () => ({ method: 'DELETE', path: '/console/rwa/jurisdictions/JP' }),
    refused: () => ({ method: 'DELETE', path: '/console/rwa/jurisdictions/US' }),
  },
  issueCredential: {
    ok: () => ({
      method: 'POST',
      path: '/console/rwa/credentials',
      body: {
        jurisdiction: 'US',
        owner_did: OWNER,
        property_data: { address: '2 Main St', type: 'residential', value_usd: 1, title_deed: 'D-2' },
      },
    }),
    refused: () => ({
      method: 'POST',
      path: '/console/rwa/credentials',
      body: {
        jurisdiction: 'XX',
        owner_did: OWNER,
        property_data: {
          address: '1 Main St',
          type: 'residential',
          value_usd: 1,
          title_deed: 'SF-2026-000123',
        },
      },
    }),
  },
  revokeCredential: {
    ok: (w) => ({
      method: 'POST',
      path: `/console/rwa/credentials/${w.credentialId}/revoke`,
      body: { reason: 'sold' },
    }),
    refused: () => ({
      method: 'POST',
      path: '/console/rwa/credentials/cred_01M8420DESXZV8X28W2ZQWTKA9/revoke',
      body: {},
    }),
  },
  submitAttestation: {
    ok: () => ({
      method: 'POST',
      path: '/console/rwa/attestations',
      body: { jurisdiction: 'SG', subject_did: RECIPIENT, type: 'kyc', attester: 'Lion KYC' },
    }),
    refused: () => ({
      method: 'POST',
      path: '/console/rwa/attestations',
      body: { jurisdiction: 'SG', subject_did: RECIPIENT, type: 'no_such_check', attester: 'Lion KYC' },
    }),
  },
  revokeAttestation: {
    ok: (w) => ({
      method: 'POST',
      path: `/console/rwa/attestations/${w.attestations.kyc}/revoke`,
      body: { reason: 'expired documents' },
    }),
    refused: () => ({
      method: 'POST',
      path: '/console/rwa/attestations/att_01M8420DESXZV8X28W2ZQWTKA9/revoke',
      body: {},
    }),
  },
  suspendCredential: {
    ok: (w) => ({
      method: 'POST',
      path: `/console/rwa/credentials/${w.credentialId}/suspend`,
      body: { reason: 'title under review' },
    }),
    refused: () => ({
      method: 'POST',
      path: '/console/rwa/credentials/cred_01M8420DESXZV8X28W2ZQWTKA9/suspend',
      body: {},
    }),
  },
  reinstateCredential: {
    prepare: async (h, w) => {
      await expectStatus(h.post(`/console/rwa/credentials/${w.credentialId}/suspend`, {}, { key: w.key }), 200)
    },
    ok: (w) => ({ method: 'POST', path: `/console/rwa/credentials/${w.credentialId}/reinstate`, body: {} }),
    refused: () => ({
      method: 'POST',
      path: '/console/rwa/credentials/cred_01M8420DESXZV8X28W2ZQWTKA9/reinstate',
      body: {},
    }),
  },
  suspendAttestation: {
    ok: (w) => ({
      method: 'POST',
      path: `/console/rwa/attestations/${w.attestations.kyc}/suspend`,
      body: { reason: 'documents under review' },
    }),
    refused: () => ({
      method: 'POST',
      path: '/console/rwa/attestations/att_01M8420DESXZV8X28W2ZQWTKA9/suspend',
      body: {},
    }),
  },
  reinstateAttestation: {
    prepare: async (h, w) => {
      await expectStatus(h.post(`/console/rwa/attestations/${w.attestations.kyc}/suspend`, {}, { key: w.key }), 200)
    },
    ok: (w) => ({ method: 'POST', path: `/console/rwa/attestations/${w.attestations.kyc}/reinstate`, body: {} }),
    refused: (w) => ({
      method: 'POST',
      path: `/console/rwa/attestations/${w.attestations.aml}/reinstate`,
      body: {},
    }),
  },
  tokenize: {
    prepare: async (h, w) => {
      const property = { address: '3 Main St', type: 'residential', value_usd: 1, title_deed: 'D-3' }
      const c = await expectStatus(
        h.post(
          '/console/rwa/credentials',
          { jurisdiction: 'US', owner_did: OWNER, property_data: property },
          { key: w.key },
        ),
        201,
      )
      ;(w as World & { second: string }).second = c.credential_id
    },
    ok: (w) => ({
      method: 'POST',
      path: '/console/rwa/tokenize',
      body: { credential_id: (w as World & { second: string }).second, total_supply: 10 },
    }),
    refused: (w) => ({
      method: 'POST',
      path: '/console/rwa/tokenize',
      body: { credential_id: w.credentialId, total_supply: 10 },
    }),
  },
  setTokenRules: {
    ok: (w) => ({ method: 'PUT', path: `${T(w)}/rules`, body: { max_holders: 5 } }),
    refused: () => ({
      method: 'PUT',
      path: '/console/rwa/tokens/tok_01M8420DESXZV8X28W2ZQWTKA9/rules',
      body: {},
    }),
  },
  pauseToken: {
    ok: (w) => ({ method: 'POST', path: `${T(w)}/pause`, body: {} }),
    refused: (w) => ({ method: 'POST', path: `${T(w)}/unpause`, body: {} }),
  },
  unpauseToken: {
    prepare: async (h, w) => {
      await expectStatus(h.post(`${T(w)}/pause`, {}, { key: w.key }), 200)
    },
    ok: (w) => ({ method: 'POST', path: `${T(w)}/unpause`, body: {} }),
    refused: (w) => ({ method: 'POST', path: `${T(w)}/pause`, body: {} }),
  },
  freezeHolder: {
    ok: (w) => ({ method: 'POST', path: `${T(w)}/freeze`, body: FREEZE }),
    refused: (w) => ({ method: 'POST', path: `${T(w)}/unfreeze`, body: FREEZE }),
  },
  unfreezeHolder: {
    prepare: async (h, w) => {
      await expectStatus(h.post(`${T(w)}/freeze`, FREEZE, { key: w.key }), 200)
    },
    ok: (w) => ({ method: 'POST', path: `${T(w)}/unfreeze`, body: FREEZE }),
    refused: (w) => ({ method: 'POST', path: `${T(w)}/freeze`, body: FREEZE }),
  },
  requestTransfer: {
    ok: (w) => ({ method: 'POST', path: '/console/rwa/transfers', body: transferBody(w.tokenId, 100) }),
    refused: (w) => ({ method: 'POST', path: '/console/rwa/transfers', body: transferBody(w.tokenId, 5000) }),
  },
  forcedTransfer: {
    ok: (w) => ({
      method: 'POST',
      path: `${T(w)}/forced-transfer`,
      body: {
        from_did: OWNER,
        to_did: RECIPIENT,
        from_jurisdiction: 'US',
        to_jurisdiction: 'US',
        amount: 10,
        reason: 'court order',
      },
    }),
    refused: (w) => ({
      method: 'POST',
      path: `${T(w)}/forced-transfer`,
      body: {
        from_did: OWNER,
        to_did: RECIPIENT,
        from_jurisdiction: 'US',
        to_jurisdiction: 'US',
        amount: 5000,
        reason: 'court order',
      },
    }),
  },
  mintTokens: {
    ok: (w) => ({
      method: 'POST',
      path: `${T(w)}/mint`,
      body: { to_did: RECIPIENT, jurisdiction: 'US', amount: 10, reason: 'round 2' },
    }),
    refused: (w) => ({
      method: 'POST',
      path: `${T(w)}/mint`,
      body: { to_did: RECIPIENT, jurisdiction: 'JP', amount: 10, reason: 'round 2' },
    }),
  },
  burnTokens: {
    ok: (w) => ({
      method: 'POST',
      path: `${T(w)}/burn`,
      body: { from_did: OWNER, jurisdiction: 'US', amount: 10, reason: 'redemption' },
    }),
    refused: (w) => ({
      method: 'POST',
      path: `${T(w)}/burn`,
      body: { from_did: OWNER, jurisdiction: 'US', amount: 5000, reason: 'redemption' },
    }),
  },
  registerIssuer: {
    ok: () => ({ method: 'POST', path: '/console/rwa/issuers', body: ISSUER }),
    refused: () => ({
      method: 'POST',
      path: '/console/rwa/issuers',
      body: { ...ISSUER, jurisdictions: ['JP'] },
    }),
  },
  updateIssuer: {
    prepare: (h, w) => registerIssuer(h, w),
    ok: () => ({ method: 'PATCH', path: '/console/rwa/issuers/acme-kyc', body: { name: 'Acme' } }),
    refused: () => ({ method: 'PATCH', path: '/console/rwa/issuers/nobody', body: { name: 'Acme' } }),
  },
  removeIssuer: {
    prepare: (h, w) => registerIssuer(h, w),
    ok: () => ({ method: 'DELETE', path: '/console/rwa/issuers/acme-kyc' }),
    refused: () => ({ method: 'DELETE', path: '/console/rwa/issuers/nobody' }),
  },
  refreshIssuer: {
    // A did:web provider that rotates its key after registration: the refresh retires one and adds one.
    prepare: async (h, w) => {
      const provider = await TestIssuer.start()
      providers.push(provider)
      await registerIssuer(h, w, { ...ISSUER, did: provider.did })
      provider.rotateKey()
    },
    ok: () => ({ method: 'POST', path: '/console/rwa/issuers/acme-kyc/refresh' }),
    refused: () => ({ method: 'POST', path: '/console/rwa/issuers/nobody/refresh' }),
  },
  createIdentity: {
    ok: () => ({ method: 'POST', path: '/console/rwa/identities', body: IDENTITY }),
    refused: () => ({
      method: 'POST',
      path: '/console/rwa/identities',
      body: { ...IDENTITY, identity_id: 'x y' },
    }),
  },
  updateIdentity: {
    prepare: (h, w) => createIdentity(h, w),
    ok: () => ({ method: 'PATCH', path: '/console/rwa/identities/ivy', body: { category: 'retail' } }),
    refused: () => ({
      method: 'PATCH',
      path: '/console/rwa/identities/nobody',
      body: { category: 'retail' },
    }),
  },
  changeIdentityDids: {
    prepare: (h, w) => createIdentity(h, w),
    ok: () => ({
      method: 'POST',
      path: '/console/rwa/identities/ivy/dids',
      body: { add: ['did:web:acme:ivy-2'] },
    }),
    refused: () => ({
      method: 'POST',
      path: '/console/rwa/identities/nobody/dids',
      body: { add: ['did:web:acme:ivy-2'] },
    }),
  },
  setApprovalPolicy: {
    ok: () => ({ method: 'PUT', path: '/console/rwa/policy', body: { require_approval: ['recover'] } }),
    refused: () => ({ method: 'PUT', path: '/console/rwa/policy', body: { require_approval: ['pause'] } }),
  },
  approveApproval: {
    prepare: (h, w) => requestForced(h, w, `org-${'approveApproval'.toLowerCase()}`),
    ok: (w) => ({ method: 'POST', path: `${APPROVAL(w)}/approve` }),
    refused: () => ({ method: 'POST', path: `${UNKNOWN_APPROVAL}/approve` }),
    alsoRecords: ['transfer.forced'],
  },
  rejectApproval: {
    prepare: (h, w) => requestForced(h, w, `org-${'rejectApproval'.toLowerCase()}`),
    ok: (w) => ({ method: 'POST', path: `${APPROVAL(w)}/reject`, body: { reason: 'no' } }),
    refused: () => ({ method: 'POST', path: `${UNKNOWN_APPROVAL}/reject`, body: {} }),
  },
  batch: {
    ok: () => ({
      method: 'POST',
      path: '/console/rwa/batch',
      body: { operations: [{ op: 'jurisdictions.register', body: { ...SG, jurisdiction_id: 'JP' } }] },
    }),
    refused: () => ({
      method: 'POST',
      path: '/console/rwa/batch',
      body: {
        operations: [
          { op: 'jurisdictions.register', body: { ...SG, jurisdiction_id: 'JP' } },
          { op: 'jurisdictions.register', body: US },
        ],
      },
    }),
  },
  recoverIdentity: {
    ok: (w) => ({
      method: 'POST',
      path: `${T(w)}/recover`,
      body: { lost_did: OWNER, new_did: RECIPIENT, reason: 'lost wallet' },
    }),
    refused: (w) => ({
      method: 'POST',
      path: `${T(w)}/recover`,
      body: { lost_did: 'did:web:nobody', new_did: RECIPIENT, reason: 'lost wallet' },
    }),
  },
}

const WRITES = (Object.values(ROUTES) as OperationSpec[]).filter((o) => o.method !== 'get')
const KEYED_WRITES = WRITES.filter((o) => o.access !== 'public')

let h: Harness
beforeAll(async () => {
  h = await createHarness({ allowHttpIssuers: true })
})
afterAll(async () => {
  for (const provider of providers) await provider.stop()
  await h.close()
})

/** The audit events of an organization, newest first, read through the API with the admin key. */
const eventsOf = async (orgId: string) =>
  (await expectStatus(h.get('/console/audit', { query: { org_id: orgId, limit: 500 } }), 200)).events as any[]

it('every write of the route table declares its audit actions and has a scenario here', () => {
  for (const operation of WRITES) expect(operation.audit, operation.operationId).toBeDefined()
  expect(KEYED_WRITES.map((o) => o.operationId).sort()).toEqual(Object.keys(SCENARIOS).sort())
  expect(WRITES.filter((o) => o.access === 'public').map((o) => o.operationId)).toEqual([
    'receiveStripeEvent',
  ])
})

describe.each(KEYED_WRITES.map((o) => [o.operationId, o] as const))('%s', (operationId, operation) => {
  it('records exactly one event with its actor, action and request id; a refused call records none', async () => {
    const scenario = SCENARIOS[operationId]!
    const orgId = `org-${operationId.toLowerCase()}`
    // Admin-only operations act with the admin key; the event lands in the organization they act on.
    const admin = operation.access === 'admin'
    const org = await h.createOrg(orgId, { tier: 'pro' })
    const world = await buildWorld(h, org.key)
    await scenario.prepare?.(h, world)
    const key = admin ? h.adminKey : org.key
    const keyId = admin
      ? (await expectStatus(h.get('/console/billing/keys', { query: { org_id: 'admin' } }), 200)).keys[0]
          .key_id
      : org.keyId
    const logOrg = scenario.logOrg ?? (admin ? 'globex' : orgId)

    const before = await eventsOf(logOrg)
    const refused = scenario.refused(world)
    const refusal = await h.request(refused.method, refused.path, { key, body: refused.body })
    expect(refusal.status, refusal.text).toBeGreaterThanOrEqual(400)
    expect(await eventsOf(logOrg)).toEqual(before)

    const call = scenario.ok(world)
    const requestId = `req-${operationId}`
    const res = await h.request(call.method, call.path, {
      key,
      body: call.body,
      headers: { 'X-Request-Id': requestId },
    })
    expect(res.status, res.text).toBeLessThan(300)
    const after = await eventsOf(logOrg)
    const all = after.filter((e) => !before.some((b) => b.event_id === e.event_id))
    const also = scenario.alsoRecords ?? []
    expect(all.map((e) => e.action).filter((a) => also.includes(a))).toEqual(also)
    for (const event of all) {
      expect(event).toMatchObject({
        org_id: logOrg,
        actor: { key_id: keyId, roles: ['owner'] },
        request_id: requestId,
      })
    }
    const fresh = all.filter((e) => !also.includes(e.action))
    expect(fresh).toHaveLength(1)
    expect(operation.audit).toContain(fresh[0].action)
    expect(fresh[0]).toMatchObject({
      org_id: logOrg,
      actor: { key_id: keyId, roles: ['owner'] },
      request_id: requestId,
    })
    expect(JSON.stringify(fresh[0])).not.toMatch(/rwa_live_[A-Za-z0-9_-]{12}|private_key|"d":/)
  })
})
