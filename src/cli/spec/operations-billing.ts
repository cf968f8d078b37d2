/*
 * GENERATED from the route tables (src/contract/*-routes.ts) by src/cli/spec/generate.ts: do not edit.
 * test/cli/spec.test.ts fails when it is stale; rewrite it with
 *   RWA_WRITE_CLI=1 npx vitest run --config test/vitest.config.ts --project sqlite test/cli/spec.test.ts
 */
import type { CliOperation } from './types.js'

export const BILLING_OPERATIONS: Readonly<Record<string, CliOperation>> = {
  getPricing: { "table":"billing","method":"get","public":true,"summary":"Get the pricing tiers (public)","paged":false, "fields": [] },
  createKey: { "table":"billing","method":"post","summary":"Create an API key (owner)","paged":false,"body":"required", "fields": [
    {"name":"org_id","in":"body","type":"string","required":false,"description":"Owning organization; defaults to the caller's own (the admin key must name it)","example":"acme"},
    {"name":"name","in":"body","type":"string","required":true,"description":"Label of the key","example":"ci"},
    {"name":"start_trial","in":"body","type":"boolean","required":false,"description":"Start the organization's 14-day trial if it has none yet","example":"true"},
    {"name":"roles","in":"body","type":"list","required":false,"description":"Roles of the key (default `[\"owner\"]`); never more than the caller has","enum":["owner","issuer","agent","transfers","auditor"],"example":"transfers"},
    {"name":"expires_at","in":"body","type":"string","required":false,"description":"When the key stops working (401 `key_expired` after it); a future instant. Absent: never","time":true,"example":"2026-11-22T23:59:59.000Z"},
  ] },
  listKeys: { "table":"billing","method":"get","summary":"List the keys of an organization (masked)","paged":false, "fields": [
    {"name":"org_id","in":"query","type":"string","required":false,"description":"Organization whose keys to list; defaults to the caller's own","example":"acme"},
  ] },
  getKeySelf: { "table":"billing","method":"get","summary":"Get the calling key: its organization, roles, plan and expiry (whoami)","paged":false, "fields": [] },
  revokeKey: { "table":"billing","method":"delete","summary":"Revoke a key (permanent; owner)","paged":false, "fields": [
    {"name":"key_id","in":"path","type":"string","required":true},
  ] },
  rerollKey: { "table":"billing","method":"post","summary":"Reroll a key: a new raw key with the same name, roles and expiry (owner)","paged":false,"body":"optional", "fields": [
    {"name":"key_id","in":"path","type":"string","required":true},
    {"name":"overlap_seconds","in":"body","type":"integer","required":false,"description":"How long the old key keeps working, 0–2592000 s (30 days); absent or 0: it stops now","min":0,"max":2592000,"example":"3600"},
  ] },
  getSubscription: { "table":"billing","method":"get","summary":"Get the subscription of an organization","paged":false, "fields": [
    {"name":"org_id","in":"path","type":"string","required":true},
  ] },
  updateSubscription: { "table":"billing","method":"post","summary":"Update the subscription tier of an organization (admin)","paged":false,"body":"required", "fields": [
    {"name":"org_id","in":"body","type":"string","required":true,"example":"acme"},
    {"name":"tier","in":"body","type":"string","required":true,"enum":["free","pro","enterprise"],"example":"pro"},
    {"name":"payment_subscription_id","in":"body","type":"string","required":false,"example":"sub_1QxYzA2eZvKYlo2C"},
    {"name":"payment_customer_id","in":"body","type":"string","required":false,"example":"cus_R4nD0mCu5t0m3r"},
    {"name":"payment_price_id","in":"body","type":"string","required":false,"example":"price_1QxPro99Monthly"},
  ] },
  getUsage: { "table":"billing","method":"get","summary":"Get the usage of an organization","paged":false, "fields": [
    {"name":"org_id","in":"path","type":"string","required":true},
    {"name":"days","in":"query","type":"integer","required":false,"description":"Window in days, 1–365","min":1,"max":365,"default":"30","example":"30"},
  ] },
  getStats: { "table":"billing","method":"get","summary":"Get the billing overview (admin)","paged":false, "fields": [] },
  receiveStripeEvent: { "table":"all","method":"post","public":true,"summary":"Stripe's signed webhook (public; verified by Stripe-Signature)","paged":false,"body":"required", "fields": [
    {"name":"id","in":"body","type":"string","required":true,"example":"evt_1QxYzB2eZvKYlo2Cq8J3"},
    {"name":"object","in":"body","type":"string","required":true,"example":"event"},
    {"name":"type","in":"body","type":"string","required":true,"example":"customer.subscription.created"},
    {"name":"created","in":"body","type":"integer","required":true,"min":0,"example":"1795342500"},
    {"name":"data.object","in":"body","type":"json","required":true},
  ] },
}
