/*
 * GENERATED from the route tables (src/contract/*-routes.ts) by src/cli/spec/generate.ts: do not edit.
 * test/cli/spec.test.ts fails when it is stale; rewrite it with
 *   RWA_WRITE_CLI=1 npx vitest run --config test/vitest.config.ts --project sqlite test/cli/spec.test.ts
 */
import type { CliOperation } from './types.js'

export const AUDIT_OPERATIONS: Readonly<Record<string, CliOperation>> = {
  listAuditEvents: { "table":"all","method":"get","summary":"List the organization's audit events, newest first","paged":true, "fields": [
    {"name":"limit","in":"query","type":"integer","required":false,"min":1,"max":500,"default":"50","example":"50"},
    {"name":"cursor","in":"query","type":"string","required":false,"description":"The previous page's `next_cursor`"},
    {"name":"org_id","in":"query","type":"string","required":false,"description":"The organization whose log to read (admin key); defaults to the caller's own","example":"acme"},
    {"name":"action","in":"query","type":"string","required":false},
    {"name":"target_id","in":"query","type":"string","required":false,"description":"The id of the record changed"},
    {"name":"actor_key_id","in":"query","type":"string","required":false,"description":"The key that made the change"},
    {"name":"since","in":"query","type":"string","required":false,"description":"Events at or after this time","time":true},
    {"name":"until","in":"query","type":"string","required":false,"description":"Events before this time","time":true},
  ] },
  getLogCheckpoint: { "table":"all","method":"get","summary":"The signed checkpoint of the organization's verifiable log","paged":false, "fields": [
    {"name":"org_id","in":"query","type":"string","required":false,"description":"The organization whose log to read (admin key); defaults to the caller's own","example":"acme"},
  ] },
  listLogEntries: { "table":"all","method":"get","summary":"The audit events at log positions [start, end)","paged":false, "fields": [
    {"name":"org_id","in":"query","type":"string","required":false,"description":"The organization whose log to read (admin key); defaults to the caller's own","example":"acme"},
    {"name":"start","in":"query","type":"integer","required":true,"description":"The first log position, inclusive","min":0},
    {"name":"end","in":"query","type":"integer","required":true,"description":"The last log position, exclusive; at most 1000 after start","min":0},
  ] },
  getLogInclusionProof: { "table":"all","method":"get","summary":"Prove that an event is in the log at a checkpoint","paged":false, "fields": [
    {"name":"org_id","in":"query","type":"string","required":false,"description":"The organization whose log to read (admin key); defaults to the caller's own","example":"acme"},
    {"name":"index","in":"query","type":"integer","required":true,"description":"The event's log position (`log_index`)","min":0},
    {"name":"tree_size","in":"query","type":"integer","required":true,"description":"The size of the checkpoint to prove against","min":0},
  ] },
  getLogConsistencyProof: { "table":"all","method":"get","summary":"Prove that a later checkpoint extends an earlier one","paged":false, "fields": [
    {"name":"org_id","in":"query","type":"string","required":false,"description":"The organization whose log to read (admin key); defaults to the caller's own","example":"acme"},
    {"name":"from","in":"query","type":"integer","required":true,"description":"The smaller tree size (at least 1)","min":0},
    {"name":"to","in":"query","type":"integer","required":true,"description":"The larger tree size","min":0},
  ] },
}
