/*
 * GENERATED from the route tables (src/contract/*-routes.ts) by src/cli/spec/generate.ts: do not edit.
 * test/cli/spec.test.ts fails when it is stale; rewrite it with
 *   RWA_WRITE_CLI=1 npx vitest run --config test/vitest.config.ts --project sqlite test/cli/spec.test.ts
 */
import type { CliOperation } from './types.js'

export const EVENTS_OPERATIONS: Readonly<Record<string, CliOperation>> = {
  streamEvents: { "table":"all","method":"get","summary":"Stream the organization's events as they are committed (server-sent events), as `rwa listen` does","paged":false, "fields": [
    {"name":"events","in":"query","type":"string","required":false,"description":"Comma-separated event selectors (types, `<resource>.*`, `*`); absent: every type","example":"transfer.*,attestation.expiring"},
  ] },
  listEvents: { "table":"all","method":"get","summary":"List the organization's events, newest first","paged":true, "fields": [
    {"name":"limit","in":"query","type":"integer","required":false,"min":1,"max":500,"default":"50","example":"50"},
    {"name":"cursor","in":"query","type":"string","required":false,"description":"The previous page's `next_cursor`"},
    {"name":"type","in":"query","type":"string","required":false,"description":"Only events of this type","enum":["transfer.approved","transfer.rejected","transfer.forced","credential.issued","credential.revoked","attestation.submitted","attestation.revoked","attestation.expiring","token.created","token.paused","token.unpaused","token.recovered","token.rules_updated","holder.frozen","holder.unfrozen","jurisdiction.registered","jurisdiction.updated","jurisdiction.removed","issuer.registered","issuer.updated","issuer.suspended","issuer.removed","issuer.keys_changed","identity.created","identity.updated","identity.dids_changed","trust.established","trust.revoked","key.created","key.revoked","key.rerolled","key.expiring","trial.ending","subscription.updated","limit.reached"],"example":"kyc"},
  ] },
  getEvent: { "table":"all","method":"get","summary":"Get an event","paged":false, "fields": [
    {"name":"id","in":"path","type":"string","required":true},
  ] },
  resendEvent: { "table":"all","method":"post","summary":"Deliver an event again to every enabled endpoint subscribed to it (owner)","paged":false,"body":"optional", "fields": [
    {"name":"id","in":"path","type":"string","required":true},
  ] },
  createWebhook: { "table":"all","method":"post","summary":"Add a webhook endpoint (owner); its signing secret is shown once","paged":false,"body":"required", "fields": [
    {"name":"url","in":"body","type":"string","required":true,"description":"Where events are POSTed: https; http only to a loopback address when the server runs with --allow-http-webhooks. No user name or password; shown whole to owner keys only (others see the path past its first segment and the query values as `***`: `/services/***?token=***`)","example":"https://hooks.example.com/rwa"},
    {"name":"events","in":"body","type":"list","required":true,"example":"transfer.*,attestation.expiring"},
    {"name":"description","in":"body","type":"string","required":false,"example":"Back office"},
  ] },
  listWebhooks: { "table":"all","method":"get","summary":"List the organization's webhook endpoints, newest first","paged":true, "fields": [
    {"name":"limit","in":"query","type":"integer","required":false,"min":1,"max":500,"default":"50","example":"50"},
    {"name":"cursor","in":"query","type":"string","required":false,"description":"The previous page's `next_cursor`"},
  ] },
  getWebhook: { "table":"all","method":"get","summary":"Get a webhook endpoint","paged":false, "fields": [
    {"name":"id","in":"path","type":"string","required":true},
  ] },
  deleteWebhook: { "table":"all","method":"delete","summary":"Delete a webhook endpoint and its pending deliveries (owner)","paged":false, "fields": [
    {"name":"id","in":"path","type":"string","required":true},
  ] },
  rotateWebhookSecret: { "table":"all","method":"post","summary":"Give a webhook endpoint a new signing secret, shown once (owner)","paged":false,"body":"optional", "fields": [
    {"name":"id","in":"path","type":"string","required":true},
  ] },
  listWebhookDeliveries: { "table":"all","method":"get","summary":"List the attempts at delivering events to an endpoint, newest first","paged":true, "fields": [
    {"name":"id","in":"path","type":"string","required":true},
    {"name":"limit","in":"query","type":"integer","required":false,"min":1,"max":500,"default":"50","example":"50"},
    {"name":"cursor","in":"query","type":"string","required":false,"description":"The previous page's `next_cursor`"},
  ] },
  retryWebhookDelivery: { "table":"all","method":"post","summary":"Attempt a delivery again now (owner); a disabled endpoint is enabled again","paged":false,"body":"optional", "fields": [
    {"name":"id","in":"path","type":"string","required":true},
    {"name":"delivery_id","in":"path","type":"string","required":true},
  ] },
}
