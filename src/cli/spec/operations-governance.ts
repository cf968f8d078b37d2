/*
 * GENERATED from the route tables (src/contract/*-routes.ts) by src/cli/spec/generate.ts: do not edit.
 * test/cli/spec.test.ts fails when it is stale; rewrite it with
 *   RWA_WRITE_CLI=1 npx vitest run --config test/vitest.config.ts --project sqlite test/cli/spec.test.ts
 */
import type { CliOperation } from './types.js'

export const GOVERNANCE_OPERATIONS: Readonly<Record<string, CliOperation>> = {
  getProofKeys: { "table":"all","method":"get","public":true,"summary":"Public keys that verify compliance proofs (public)","paged":false, "fields": [] },
  getTrustBundle: { "table":"all","method":"get","summary":"The organization's trust anchors: proof keys (retired ones included, with their validity) and the jurisdictions' issuer DIDs, for offline verification","paged":false, "fields": [] },
  rotateSigningKey: { "table":"all","method":"post","summary":"Rotate the proof-signing key (admin)","paged":false,"body":"optional", "fields": [
    {"name":"reason","in":"body","type":"string","required":false,"description":"Why the key is rotated (recorded in the audit log)","example":"yearly rotation"},
  ] },
  getStatusList: { "table":"all","method":"get","public":true,"summary":"A W3C Bitstring Status List credential (public): revocation any verifier can check","paged":false, "fields": [
    {"name":"list_id","in":"path","type":"string","required":true},
  ] },
  listTrust: { "table":"all","method":"get","summary":"List trust relations","paged":true, "fields": [
    {"name":"limit","in":"query","type":"integer","required":false,"min":1,"max":500,"default":"50","example":"50"},
    {"name":"cursor","in":"query","type":"string","required":false,"description":"The previous page's `next_cursor`"},
    {"name":"status","in":"query","type":"string","required":false,"enum":["active","revoked"],"example":"suspended"},
    {"name":"jurisdiction","in":"query","type":"string","required":false,"description":"Relations with this jurisdiction at either end","example":"US"},
  ] },
  establishTrust: { "table":"all","method":"post","summary":"Establish trust between two jurisdictions","paged":false,"body":"required", "fields": [
    {"name":"from_jurisdiction","in":"body","type":"string","required":true,"description":"Source: transfers may go from here","example":"US"},
    {"name":"to_jurisdiction","in":"body","type":"string","required":true,"description":"Target: recognises attestations issued by the source","example":"SG"},
    {"name":"mutual","in":"body","type":"boolean","required":false,"description":"Trust in both directions","example":"true"},
  ] },
  revokeTrust: { "table":"all","method":"delete","summary":"Revoke trust between two jurisdictions (pair in the body or the query)","paged":false,"body":"optional", "fields": [
    {"name":"from_jurisdiction","in":"query","type":"string","required":false,"description":"Short code of the jurisdiction, e.g. `US`","example":"US"},
    {"name":"to_jurisdiction","in":"query","type":"string","required":false,"description":"Short code of the jurisdiction, e.g. `US`","example":"SG"},
    {"name":"from_jurisdiction","in":"body","type":"string","required":true,"description":"Source: transfers may go from here","example":"US"},
    {"name":"to_jurisdiction","in":"body","type":"string","required":true,"description":"Target: recognises attestations issued by the source","example":"SG"},
  ] },
  listJurisdictions: { "table":"all","method":"get","summary":"List registered jurisdictions","paged":true, "fields": [
    {"name":"limit","in":"query","type":"integer","required":false,"min":1,"max":500,"default":"50","example":"50"},
    {"name":"cursor","in":"query","type":"string","required":false,"description":"The previous page's `next_cursor`"},
  ] },
  registerJurisdiction: { "table":"all","method":"post","summary":"Register a jurisdiction (the service generates its Ed25519 key and issuer_did)","paged":false,"body":"required", "fields": [
    {"name":"jurisdiction_id","in":"body","type":"string","required":true,"description":"Short code of the jurisdiction, e.g. `US`","example":"US"},
    {"name":"name","in":"body","type":"string","required":true,"description":"Display name","example":"United States"},
    {"name":"regulatory_body","in":"body","type":"string","required":true,"description":"Name of the regulator","example":"SEC"},
    {"name":"frameworks","in":"body","type":"list","required":false,"description":"Regulatory frameworks","example":"Reg D"},
    {"name":"credential_types","in":"body","type":"list","required":false,"description":"Credential types the jurisdiction accepts (default both PropertyOwnership and RegulatoryAttestation)","default":"PropertyOwnership,RegulatoryAttestation","example":"PropertyOwnership,RegulatoryAttestation"},
    {"name":"transfer_requirements","in":"body","type":"list","required":false,"description":"Requirements a transfer out of or into the jurisdiction must satisfy, e.g. `kyc`","example":"kyc,aml,title_verification"},
    {"name":"external_only","in":"body","type":"list","required":false,"description":"Requirements met only by trusted issuers' attestations (docs/issuers.md), not the organization's own; each one of transfer_requirements","example":""},
  ] },
  getJurisdiction: { "table":"all","method":"get","summary":"Get jurisdiction details","paged":false, "fields": [
    {"name":"id","in":"path","type":"string","required":true,"description":"Short code of the jurisdiction, e.g. `US`"},
  ] },
  updateJurisdiction: { "table":"all","method":"put","summary":"Update jurisdiction configuration (replaces the mutable fields)","paged":false,"body":"required", "fields": [
    {"name":"id","in":"path","type":"string","required":true,"description":"Short code of the jurisdiction, e.g. `US`"},
    {"name":"name","in":"body","type":"string","required":true,"description":"Display name","example":"United States"},
    {"name":"regulatory_body","in":"body","type":"string","required":true,"description":"Name of the regulator","example":"SEC"},
    {"name":"frameworks","in":"body","type":"list","required":false,"description":"Regulatory frameworks","example":"Reg D,Reg S"},
    {"name":"credential_types","in":"body","type":"list","required":false,"description":"Credential types the jurisdiction accepts (default both PropertyOwnership and RegulatoryAttestation)","default":"PropertyOwnership,RegulatoryAttestation","example":"PropertyOwnership,RegulatoryAttestation"},
    {"name":"transfer_requirements","in":"body","type":"list","required":false,"description":"Requirements a transfer out of or into the jurisdiction must satisfy, e.g. `kyc`","example":"kyc,aml,title_verification"},
    {"name":"external_only","in":"body","type":"list","required":false,"description":"Requirements met only by trusted issuers' attestations (docs/issuers.md), not the organization's own; each one of transfer_requirements","example":""},
  ] },
  removeJurisdiction: { "table":"all","method":"delete","summary":"Remove a jurisdiction nothing refers to","paged":false, "fields": [
    {"name":"id","in":"path","type":"string","required":true,"description":"Short code of the jurisdiction, e.g. `US`"},
  ] },
  listCredentials: { "table":"all","method":"get","summary":"List credentials; filter by jurisdiction, owner_did, status","paged":true, "fields": [
    {"name":"limit","in":"query","type":"integer","required":false,"min":1,"max":500,"default":"50","example":"50"},
    {"name":"cursor","in":"query","type":"string","required":false,"description":"The previous page's `next_cursor`"},
    {"name":"jurisdiction","in":"query","type":"string","required":false,"description":"Short code of the jurisdiction, e.g. `US`","example":"US"},
    {"name":"owner_did","in":"query","type":"string","required":false,"example":"did:web:acme:alice"},
    {"name":"status","in":"query","type":"string","required":false,"enum":["active","suspended","revoked"],"example":"suspended"},
  ] },
  issueCredential: { "table":"all","method":"post","summary":"Issue a property credential (a VC-JWT signed by the jurisdiction)","paged":false,"body":"required", "fields": [
    {"name":"jurisdiction","in":"body","type":"string","required":true,"description":"jurisdiction_id of the issuing jurisdiction","example":"US"},
    {"name":"owner_did","in":"body","type":"string","required":true,"example":"did:web:acme:alice"},
    {"name":"property_data.address","in":"body","type":"string","required":true,"description":"Location of the property","example":"600 Congress Ave, Austin, TX"},
    {"name":"property_data.type","in":"body","type":"string","required":true,"description":"Kind of property (a category word), e.g. `commercial`","example":"commercial"},
    {"name":"property_data.value_usd","in":"body","type":"number","required":true,"description":"Value in US dollars","example":"48500000"},
    {"name":"property_data.title_deed","in":"body","type":"string","required":true,"description":"Title deed reference","example":"TX-TRAVIS-2019-004512"},
    {"name":"valid_until","in":"body","type":"string","required":false,"description":"End of validity; none means valid until revoked","time":true,"example":"2027-11-22T00:00:00.000Z"},
  ] },
  getCredential: { "table":"all","method":"get","summary":"Get credential details","paged":false, "fields": [
    {"name":"id","in":"path","type":"string","required":true},
  ] },
  revokeCredential: { "table":"all","method":"post","summary":"Revoke a credential (permanent; freezes its token)","paged":false,"body":"optional", "fields": [
    {"name":"id","in":"path","type":"string","required":true},
    {"name":"reason","in":"body","type":"string","required":false,"description":"Why the credential is revoked","example":"Title transferred outside the platform"},
  ] },
  suspendCredential: { "table":"all","method":"post","summary":"Suspend a credential until reinstated (sets its suspension bit; it fails credential_valid meanwhile)","paged":false,"body":"optional", "fields": [
    {"name":"id","in":"path","type":"string","required":true},
    {"name":"reason","in":"body","type":"string","required":false,"description":"Why it is suspended, e.g. under investigation","example":"Ownership disputed in court; under review"},
  ] },
  reinstateCredential: { "table":"all","method":"post","summary":"Reinstate a suspended credential (clears its suspension bit)","paged":false, "fields": [
    {"name":"id","in":"path","type":"string","required":true},
  ] },
  listAttestations: { "table":"all","method":"get","summary":"List attestations; filter by jurisdiction, credential_id, subject_did, type","paged":true, "fields": [
    {"name":"limit","in":"query","type":"integer","required":false,"min":1,"max":500,"default":"50","example":"50"},
    {"name":"cursor","in":"query","type":"string","required":false,"description":"The previous page's `next_cursor`"},
    {"name":"jurisdiction","in":"query","type":"string","required":false,"description":"Short code of the jurisdiction, e.g. `US`","example":"US"},
    {"name":"credential_id","in":"query","type":"string","required":false,"example":"cred_01M8420DESXZV8X28W2ZQWTKA9"},
    {"name":"subject_did","in":"query","type":"string","required":false,"example":"did:web:acme:bob"},
    {"name":"type","in":"query","type":"string","required":false,"example":"kyc"},
  ] },
  submitAttestation: { "table":"all","method":"post","summary":"Submit a regulatory attestation, or a trusted issuer's credential (`{ vc_jwt }`)","paged":false,"body":"required", "fields": [
    {"name":"jurisdiction","in":"body","type":"string","required":true,"description":"The jurisdiction issuing (signing) the attestation","example":"SG"},
    {"name":"subject_did","in":"body","type":"string","required":true,"description":"Who the attestation is about","example":"did:web:acme:bob"},
    {"name":"type","in":"body","type":"string","required":true,"description":"The requirement it satisfies, e.g. `kyc`","example":"kyc"},
    {"name":"attester","in":"body","type":"string","required":true,"description":"Who performed the check, e.g. a KYC provider","example":"Onfido"},
    {"name":"credential_id","in":"body","type":"string","required":false,"description":"The property credential it concerns; required for title_verification","example":"cred_01M8420DESXZV8X28W2ZQWTKA9"},
    {"name":"evidence","in":"body","type":"string","required":false,"description":"Reference to the supporting evidence","example":"onfido:check:7f3c2a"},
    {"name":"valid_until","in":"body","type":"string","required":false,"description":"End of validity; none means it does not expire","time":true,"example":"2027-11-22T00:00:00.000Z"},
    {"name":"vc_jwt","in":"body","type":"string","required":false,"description":"A trusted issuer's VC-JWT, verbatim: verified now","alternative":true},
  ] },
  getAttestation: { "table":"all","method":"get","summary":"Get attestation details","paged":false, "fields": [
    {"name":"id","in":"path","type":"string","required":true},
  ] },
  revokeAttestation: { "table":"all","method":"post","summary":"Revoke an attestation (permanent; sets its status-list bit, evaluations stop relying on it)","paged":false,"body":"optional", "fields": [
    {"name":"id","in":"path","type":"string","required":true},
    {"name":"reason","in":"body","type":"string","required":false,"description":"Why the attestation is revoked, e.g. found to be false","example":"The KYC check was found to be forged"},
  ] },
  suspendAttestation: { "table":"all","method":"post","summary":"Suspend the organization's own attestation until reinstated (sets its suspension bit; it meets nothing meanwhile)","paged":false,"body":"optional", "fields": [
    {"name":"id","in":"path","type":"string","required":true},
    {"name":"reason","in":"body","type":"string","required":false,"description":"Why it is suspended, e.g. under investigation","example":"Ownership disputed in court; under review"},
  ] },
  reinstateAttestation: { "table":"all","method":"post","summary":"Reinstate the organization's own suspended attestation (clears its suspension bit)","paged":false, "fields": [
    {"name":"id","in":"path","type":"string","required":true},
  ] },
  tokenize: { "table":"all","method":"post","summary":"Tokenize a credentialed asset","paged":false,"body":"required", "fields": [
    {"name":"credential_id","in":"body","type":"string","required":true,"example":"cred_01M8420DESXZV8X28W2ZQWTKA9"},
    {"name":"total_supply","in":"body","type":"integer","required":true,"min":1,"example":"1000"},
    {"name":"symbol","in":"body","type":"string","required":false,"example":"ATX"},
  ] },
  listTokens: { "table":"all","method":"get","summary":"List tokenized assets; filter by jurisdiction, owner_did, status","paged":true, "fields": [
    {"name":"limit","in":"query","type":"integer","required":false,"min":1,"max":500,"default":"50","example":"50"},
    {"name":"cursor","in":"query","type":"string","required":false,"description":"The previous page's `next_cursor`"},
    {"name":"jurisdiction","in":"query","type":"string","required":false,"description":"Short code of the jurisdiction, e.g. `US`","example":"US"},
    {"name":"owner_did","in":"query","type":"string","required":false,"example":"did:web:acme:alice"},
    {"name":"status","in":"query","type":"string","required":false,"enum":["active","paused","frozen"],"example":"suspended"},
  ] },
  getToken: { "table":"all","method":"get","summary":"Token details with its rules, frozen holders and latest 100 governance events","paged":false, "fields": [
    {"name":"id","in":"path","type":"string","required":true},
  ] },
  getTokenHistory: { "table":"all","method":"get","summary":"Every event of a token's governance history, oldest first, a page at a time","paged":true, "fields": [
    {"name":"id","in":"path","type":"string","required":true},
    {"name":"limit","in":"query","type":"integer","required":false,"min":1,"max":500,"default":"50","example":"50"},
    {"name":"cursor","in":"query","type":"string","required":false,"description":"The previous page's `next_cursor`"},
  ] },
  listHoldings: { "table":"all","method":"get","summary":"A token's holdings with their frozen units; filter by holder_did, jurisdiction","paged":true, "fields": [
    {"name":"id","in":"path","type":"string","required":true},
    {"name":"limit","in":"query","type":"integer","required":false,"min":1,"max":500,"default":"50","example":"50"},
    {"name":"cursor","in":"query","type":"string","required":false,"description":"The previous page's `next_cursor`"},
    {"name":"holder_did","in":"query","type":"string","required":false,"example":"did:web:acme:bob"},
    {"name":"jurisdiction","in":"query","type":"string","required":false,"description":"Short code of the jurisdiction, e.g. `US`","example":"US"},
  ] },
  listFrozenHolders: { "table":"all","method":"get","summary":"The DIDs frozen for a token as a whole (POST .../freeze), in order, a page at a time","paged":true, "fields": [
    {"name":"id","in":"path","type":"string","required":true},
    {"name":"limit","in":"query","type":"integer","required":false,"min":1,"max":500,"default":"50","example":"50"},
    {"name":"cursor","in":"query","type":"string","required":false,"description":"The previous page's `next_cursor`"},
  ] },
  setTokenRules: { "table":"all","method":"put","summary":"Replace a token's transfer rules (null or absent clears a rule)","paged":false,"body":"required", "fields": [
    {"name":"id","in":"path","type":"string","required":true},
    {"name":"max_balance_per_holder","in":"body","type":"integer","required":false,"min":1,"nullable":true,"example":"500"},
    {"name":"max_holders","in":"body","type":"json","required":false,"description":"Holders with a non-zero holding in the target jurisdiction: a number for every jurisdiction, or `{ \"SG\": 50 }`","nullable":true},
    {"name":"lockup_until","in":"body","type":"string","required":false,"time":true,"nullable":true,"example":"2027-01-01T00:00:00.000Z"},
    {"name":"max_transfer_amount","in":"body","type":"integer","required":false,"min":1,"nullable":true},
    {"name":"daily_volume_per_holder","in":"body","type":"integer","required":false,"min":1,"nullable":true},
    {"name":"min_holding","in":"body","type":"integer","required":false,"min":1,"nullable":true},
    {"name":"transfer_windows","in":"body","type":"json","required":false,"nullable":true},
    {"name":"lockup_days_after_receipt","in":"body","type":"integer","required":false,"min":1,"max":3650,"nullable":true},
    {"name":"max_supply","in":"body","type":"integer","required":false,"min":1,"nullable":true},
    {"name":"country_allow","in":"body","type":"list","required":false,"description":"Only a recipient whose identity's country is listed may receive; a recipient without an identity may not","nullable":true,"example":"US,SG"},
    {"name":"country_deny","in":"body","type":"list","required":false,"description":"A recipient whose identity's country is listed may not receive; nor may a recipient without an identity","nullable":true},
    {"name":"max_holders_per_country","in":"body","type":"json","required":false,"description":"Identities (not DIDs) holding a non-zero amount, per country of the identity: `{ \"US\": 2000 }`; a transfer making a new holder identity past the cap fails","nullable":true},
    {"name":"max_ownership_percent","in":"body","type":"number","required":false,"description":"An identity's total over all its DIDs and jurisdictions after the transfer, as a percent of the token's supply, may not exceed it","nullable":true,"example":"10"},
    {"name":"allowed_categories","in":"body","type":"list","required":false,"description":"Only a recipient whose identity's category is listed may receive","enum":["retail","professional","accredited","qualified","institutional"],"nullable":true},
    {"name":"reason","in":"body","type":"string","required":false,"example":"Offering memorandum, section 4"},
  ] },
  pauseToken: { "table":"all","method":"post","summary":"Pause a token: every transfer is refused (token_active) until unpaused","paged":false,"body":"optional", "fields": [
    {"name":"id","in":"path","type":"string","required":true},
    {"name":"reason","in":"body","type":"string","required":false,"example":"Corporate action: stock split record date"},
  ] },
  unpauseToken: { "table":"all","method":"post","summary":"Unpause a paused token","paged":false,"body":"optional", "fields": [
    {"name":"id","in":"path","type":"string","required":true},
    {"name":"reason","in":"body","type":"string","required":false,"example":"Corporate action: stock split record date"},
  ] },
  freezeHolder: { "table":"all","method":"post","summary":"Freeze a holder (no amount: can neither send nor receive) or an amount of one holding","paged":false,"body":"required", "fields": [
    {"name":"id","in":"path","type":"string","required":true},
    {"name":"holder_did","in":"body","type":"string","required":true,"example":"did:web:acme:bob"},
    {"name":"jurisdiction","in":"body","type":"string","required":false,"description":"The holding whose units are (un)frozen; required with `amount`","example":"SG"},
    {"name":"amount","in":"body","type":"integer","required":false,"description":"Units of the holding to freeze or unfreeze; without it the whole holder is (un)frozen","min":1,"example":"100"},
    {"name":"reason","in":"body","type":"string","required":false,"example":"Court order 2026-77"},
  ] },
  unfreezeHolder: { "table":"all","method":"post","summary":"Unfreeze a holder, or an amount of frozen units of one holding","paged":false,"body":"required", "fields": [
    {"name":"id","in":"path","type":"string","required":true},
    {"name":"holder_did","in":"body","type":"string","required":true,"example":"did:web:acme:bob"},
    {"name":"jurisdiction","in":"body","type":"string","required":false,"description":"The holding whose units are (un)frozen; required with `amount`","example":"SG"},
    {"name":"amount","in":"body","type":"integer","required":false,"description":"Units of the holding to freeze or unfreeze; without it the whole holder is (un)frozen","min":1,"example":"100"},
    {"name":"reason","in":"body","type":"string","required":false,"example":"Court order 2026-77"},
  ] },
  requestTransfer: { "table":"all","method":"post","summary":"Request a cross-border transfer (recorded approved or rejected, with a signed proof)","paged":false,"body":"required", "fields": [
    {"name":"token_id","in":"body","type":"string","required":true,"example":"tok_01M8420DF5B1B94XW7AYVF6AZG"},
    {"name":"from_jurisdiction","in":"body","type":"string","required":true,"description":"Short code of the jurisdiction, e.g. `US`","example":"US"},
    {"name":"to_jurisdiction","in":"body","type":"string","required":true,"description":"Short code of the jurisdiction, e.g. `US`","example":"SG"},
    {"name":"recipient_did","in":"body","type":"string","required":true,"example":"did:web:acme:bob"},
    {"name":"sender_did","in":"body","type":"string","required":false,"description":"Whose holding moves; defaults to the token's owner"},
    {"name":"amount","in":"body","type":"integer","required":true,"description":"Whole units of the token","min":1,"example":"250"},
  ] },
  listTransfers: { "table":"all","method":"get","summary":"List transfers; filter by token_id, status, jurisdiction (source or target)","paged":true, "fields": [
    {"name":"limit","in":"query","type":"integer","required":false,"min":1,"max":500,"default":"50","example":"50"},
    {"name":"cursor","in":"query","type":"string","required":false,"description":"The previous page's `next_cursor`"},
    {"name":"token_id","in":"query","type":"string","required":false,"example":"tok_01M8420DF5B1B94XW7AYVF6AZG"},
    {"name":"status","in":"query","type":"string","required":false,"enum":["approved","rejected","forced"],"example":"suspended"},
    {"name":"jurisdiction","in":"query","type":"string","required":false,"description":"Transfers with this jurisdiction as source or target","example":"US"},
  ] },
  getTransfer: { "table":"all","method":"get","summary":"Transfer details with its compliance proof","paged":false, "fields": [
    {"name":"id","in":"path","type":"string","required":true},
  ] },
  getProof: { "table":"all","method":"get","summary":"Compliance proof by its identifier","paged":false, "fields": [
    {"name":"id","in":"path","type":"string","required":true},
  ] },
  forcedTransfer: { "table":"all","method":"post","summary":"An agent's transfer by authority: bypasses requirements, rules, freezes and pause; the recipient needs kyc","paged":false,"body":"required", "fields": [
    {"name":"id","in":"path","type":"string","required":true},
    {"name":"from_did","in":"body","type":"string","required":true,"example":"did:web:acme:bob"},
    {"name":"from_jurisdiction","in":"body","type":"string","required":true,"description":"Short code of the jurisdiction, e.g. `US`","example":"SG"},
    {"name":"to_did","in":"body","type":"string","required":true,"example":"did:web:acme:alice"},
    {"name":"to_jurisdiction","in":"body","type":"string","required":true,"description":"Short code of the jurisdiction, e.g. `US`","example":"US"},
    {"name":"amount","in":"body","type":"integer","required":true,"min":1,"example":"100"},
    {"name":"reason","in":"body","type":"string","required":true,"description":"The authority for it, e.g. a court order reference","example":"Court order 2026-77"},
  ] },
  mintTokens: { "table":"all","method":"post","summary":"Create new units in a holding (rule max_supply caps the supply after it)","paged":false,"body":"required", "fields": [
    {"name":"id","in":"path","type":"string","required":true},
    {"name":"to_did","in":"body","type":"string","required":true,"example":"did:web:acme:bob"},
    {"name":"jurisdiction","in":"body","type":"string","required":true,"description":"Where the new units are held","example":"SG"},
    {"name":"amount","in":"body","type":"integer","required":true,"min":1,"example":"200"},
    {"name":"reason","in":"body","type":"string","required":true,"description":"Why, e.g. a subscription round","example":"Second subscription round, allocation 14"},
  ] },
  burnTokens: { "table":"all","method":"post","summary":"Take units out of existence from a holding (unfrozen units first, then frozen ones)","paged":false,"body":"required", "fields": [
    {"name":"id","in":"path","type":"string","required":true},
    {"name":"from_did","in":"body","type":"string","required":true,"example":"did:web:acme:bob"},
    {"name":"jurisdiction","in":"body","type":"string","required":true,"description":"The holding the units are taken from","example":"SG"},
    {"name":"amount","in":"body","type":"integer","required":true,"min":1,"example":"50"},
    {"name":"reason","in":"body","type":"string","required":true,"description":"Why, e.g. a redemption","example":"Redemption 2026-12"},
  ] },
  recoverIdentity: { "table":"all","method":"post","summary":"Move a lost identity's holdings and freezes to a new DID that holds kyc where they are","paged":false,"body":"required", "fields": [
    {"name":"id","in":"path","type":"string","required":true},
    {"name":"lost_did","in":"body","type":"string","required":true,"example":"did:web:acme:bob"},
    {"name":"new_did","in":"body","type":"string","required":true,"example":"did:web:acme:bob-2"},
    {"name":"reason","in":"body","type":"string","required":true,"example":"Lost keys, ticket 881"},
  ] },
  canTransfer: { "table":"all","method":"get","summary":"Would this transfer be approved now? The evaluation, recording nothing","paged":false, "fields": [
    {"name":"id","in":"path","type":"string","required":true},
    {"name":"from_jurisdiction","in":"query","type":"string","required":true,"description":"Short code of the jurisdiction, e.g. `US`","example":"US"},
    {"name":"to_jurisdiction","in":"query","type":"string","required":true,"description":"Short code of the jurisdiction, e.g. `US`","example":"SG"},
    {"name":"recipient_did","in":"query","type":"string","required":true,"example":"did:web:acme:bob"},
    {"name":"sender_did","in":"query","type":"string","required":false,"description":"Whose holding moves; defaults to the token's owner"},
    {"name":"amount","in":"query","type":"integer","required":true,"description":"Whole units","min":1,"example":"100"},
  ] },
  batch: { "table":"all","method":"post","summary":"Run up to 1,000 governance writes in order, all or nothing by default","paged":false,"body":"required", "fields": [
    {"name":"operations","in":"body","type":"json","required":true,"description":"The operations, run in order (at most 1000)"},
    {"name":"atomic","in":"body","type":"boolean","required":false,"description":"true (default): all or nothing, the first failure rolls every operation back (422); false: each operation stands alone","example":"true"},
    {"name":"dry_run","in":"body","type":"boolean","required":false,"description":"Run the whole batch for real and roll it back: references, quotas, rules and evaluations are checked, nothing is kept","example":"false"},
  ] },
  listIssuers: { "table":"all","method":"get","summary":"List trusted issuers, newest first; filter by jurisdiction, requirement, status","paged":true, "fields": [
    {"name":"limit","in":"query","type":"integer","required":false,"min":1,"max":500,"default":"50","example":"50"},
    {"name":"cursor","in":"query","type":"string","required":false,"description":"The previous page's `next_cursor`"},
    {"name":"jurisdiction","in":"query","type":"string","required":false,"description":"Only issuers recognised by this jurisdiction","example":"US"},
    {"name":"requirement","in":"query","type":"string","required":false,"description":"Only issuers trusted for this requirement"},
    {"name":"status","in":"query","type":"string","required":false,"enum":["active","suspended","removed"],"example":"suspended"},
  ] },
  registerIssuer: { "table":"all","method":"post","summary":"Register a trusted issuer (a did:key or did:web) for requirements in jurisdictions","paged":false,"body":"required", "fields": [
    {"name":"issuer_id","in":"body","type":"string","required":true,"description":"Short code of the issuer, e.g. `acme-kyc`","example":"acme-kyc"},
    {"name":"name","in":"body","type":"string","required":true,"description":"Display name, e.g. the provider","example":"Acme KYC"},
    {"name":"did","in":"body","type":"string","required":true,"description":"The issuer's DID: did:key (Ed25519) or did:web (its document fetched at https://host/.well-known/did.json, or https://host/path/did.json)","example":"did:web:kyc.example.com"},
    {"name":"requirements","in":"body","type":"json","required":true,"description":"The requirements the issuer is trusted for, each with the VC types that meet it, e.g. `{ \"kyc\": [\"KYCCredential\"] }`"},
    {"name":"jurisdictions","in":"body","type":"list","required":true,"description":"The organization's jurisdictions that recognise the issuer's credentials","example":"US,SG"},
    {"name":"valid_until","in":"body","type":"string","required":false,"description":"When the organization stops trusting the issuer","time":true,"example":"2027-11-22T00:00:00.000Z"},
  ] },
  getIssuer: { "table":"all","method":"get","summary":"Get a trusted issuer, with every key it ever had","paged":false, "fields": [
    {"name":"id","in":"path","type":"string","required":true,"description":"Short code of the issuer, e.g. `acme-kyc`"},
  ] },
  updateIssuer: { "table":"all","method":"patch","summary":"Change a trusted issuer: name, requirements, jurisdictions, valid_until, status (active or suspended)","paged":false,"body":"required", "fields": [
    {"name":"id","in":"path","type":"string","required":true,"description":"Short code of the issuer, e.g. `acme-kyc`"},
    {"name":"name","in":"body","type":"string","required":false,"example":"ci"},
    {"name":"requirements","in":"body","type":"json","required":false,"description":"The requirements the issuer is trusted for, each with the VC types that meet it, e.g. `{ \"kyc\": [\"KYCCredential\"] }`"},
    {"name":"jurisdictions","in":"body","type":"list","required":false,"description":"The organization's jurisdictions that recognise the issuer's credentials","example":"US,SG"},
    {"name":"valid_until","in":"body","type":"string","required":false,"description":"null: trusted with no end","time":true,"nullable":true,"example":"2027-11-22T00:00:00.000Z"},
    {"name":"status","in":"body","type":"string","required":false,"description":"`suspended`: its credentials are refused and its attestations meet nothing until `active`","enum":["active","suspended"],"example":"suspended"},
  ] },
  removeIssuer: { "table":"all","method":"delete","summary":"Remove a trusted issuer: the record and its keys are kept (status `removed`), its credentials are refused","paged":false, "fields": [
    {"name":"id","in":"path","type":"string","required":true,"description":"Short code of the issuer, e.g. `acme-kyc`"},
  ] },
  refreshIssuer: { "table":"all","method":"post","summary":"Resolve the issuer's DID again now: new keys are added, keys gone from it retired (never deleted)","paged":false,"body":"optional", "fields": [
    {"name":"id","in":"path","type":"string","required":true,"description":"Short code of the issuer, e.g. `acme-kyc`"},
  ] },
  listIdentities: { "table":"all","method":"get","summary":"List identities, newest first; filter by country, category, did","paged":true, "fields": [
    {"name":"limit","in":"query","type":"integer","required":false,"min":1,"max":500,"default":"50","example":"50"},
    {"name":"cursor","in":"query","type":"string","required":false,"description":"The previous page's `next_cursor`"},
    {"name":"country","in":"query","type":"string","required":false,"description":"Only identities of this country","example":"US"},
    {"name":"category","in":"query","type":"string","required":false,"description":"Only identities of this category","enum":["retail","professional","accredited","qualified","institutional"],"example":"accredited"},
    {"name":"did","in":"query","type":"string","required":false,"description":"Only the identity this DID belongs to","example":"did:web:kyc.example.com"},
  ] },
  createIdentity: { "table":"all","method":"post","summary":"Create an identity: the DIDs of one investor, its country and category","paged":false,"body":"required", "fields": [
    {"name":"identity_id","in":"body","type":"string","required":false,"description":"Absent: the service makes an `idn_…` id"},
    {"name":"dids","in":"body","type":"list","required":true,"description":"The DIDs of the investor; none may be in another identity of the organization","example":"did:web:acme:alice,did:web:acme:alice-cold"},
    {"name":"country","in":"body","type":"string","required":true,"description":"An officially assigned ISO 3166-1 alpha-2 country code, or XK (Kosovo), e.g. `US`","example":"US"},
    {"name":"category","in":"body","type":"string","required":false,"description":"The investor category: retail, professional, accredited, qualified, institutional","enum":["retail","professional","accredited","qualified","institutional"],"example":"accredited"},
  ] },
  getIdentity: { "table":"all","method":"get","summary":"Get an identity with its DIDs","paged":false, "fields": [
    {"name":"id","in":"path","type":"string","required":true,"description":"The identity id, e.g. `idn_01JD…` or one chosen at creation such as `investor-42`"},
  ] },
  updateIdentity: { "table":"all","method":"patch","summary":"Change an identity's country or category","paged":false,"body":"required", "fields": [
    {"name":"id","in":"path","type":"string","required":true,"description":"The identity id, e.g. `idn_01JD…` or one chosen at creation such as `investor-42`"},
    {"name":"country","in":"body","type":"string","required":false,"description":"An officially assigned ISO 3166-1 alpha-2 country code, or XK (Kosovo), e.g. `US`","example":"US"},
    {"name":"category","in":"body","type":"string","required":false,"description":"null: no category","enum":["retail","professional","accredited","qualified","institutional"],"nullable":true,"example":"qualified"},
  ] },
  changeIdentityDids: { "table":"all","method":"post","summary":"Add DIDs to an identity or remove some (a removed DID is free for another identity)","paged":false,"body":"required", "fields": [
    {"name":"id","in":"path","type":"string","required":true,"description":"The identity id, e.g. `idn_01JD…` or one chosen at creation such as `investor-42`"},
    {"name":"add","in":"body","type":"list","required":false,"description":"DIDs to add (none may be in another identity)","example":"did:web:acme:alice-new"},
    {"name":"remove","in":"body","type":"list","required":false,"description":"DIDs of the identity to remove (each is then free for another)","example":"did:web:acme:alice-cold"},
  ] },
  listHolders: { "table":"all","method":"get","summary":"A token's holders grouped by identity: each identity's total and its DIDs' units; a DID of no identity alone","paged":true, "fields": [
    {"name":"id","in":"path","type":"string","required":true},
    {"name":"limit","in":"query","type":"integer","required":false,"min":1,"max":500,"default":"50","example":"50"},
    {"name":"cursor","in":"query","type":"string","required":false,"description":"The previous page's `next_cursor`"},
  ] },
  getApprovalPolicy: { "table":"all","method":"get","summary":"The organization's four-eyes policy: the operations that need a second key","paged":false, "fields": [] },
  setApprovalPolicy: { "table":"all","method":"put","summary":"Set which operations need a second key (owner)","paged":false,"body":"required", "fields": [
    {"name":"require_approval","in":"body","type":"list","required":true,"description":"The operations that need a second key, among forced_transfer, recover, credential_revoke, unfreeze, mint, burn","enum":["forced_transfer","recover","credential_revoke","unfreeze","mint","burn"],"example":"forced_transfer,recover"},
  ] },
  listApprovals: { "table":"all","method":"get","summary":"List approvals, newest first; filter by status","paged":true, "fields": [
    {"name":"limit","in":"query","type":"integer","required":false,"min":1,"max":500,"default":"50","example":"50"},
    {"name":"cursor","in":"query","type":"string","required":false,"description":"The previous page's `next_cursor`"},
    {"name":"status","in":"query","type":"string","required":false,"enum":["pending","approved","rejected","expired","failed","cancelled"],"example":"suspended"},
  ] },
  getApproval: { "table":"all","method":"get","summary":"An approval: what waits (or waited) for a second key, and what became of it","paged":false, "fields": [
    {"name":"id","in":"path","type":"string","required":true},
  ] },
  approveApproval: { "table":"all","method":"post","summary":"Approve a pending approval: runs its operation now, answering as the operation does","paged":false, "fields": [
    {"name":"id","in":"path","type":"string","required":true},
  ] },
  rejectApproval: { "table":"all","method":"post","summary":"Reject a pending approval: its operation never runs","paged":false,"body":"optional", "fields": [
    {"name":"id","in":"path","type":"string","required":true},
    {"name":"reason","in":"body","type":"string","required":false,"description":"Why, for the record","example":"Wrong recipient"},
  ] },
}
