import type { BatchRequestInput, BatchResponse } from './batch.js'
import { credentialExample, issueCredentialRequestExample, newTokenExample } from './examples.js'

/** A credential and its token in one atomic batch: the token names the credential by its ref. */
export const batchRequestExample: BatchRequestInput = {
  operations: [
    { ref: 'deed', op: 'credentials.issue', body: issueCredentialRequestExample },
    {
      ref: 'token',
      op: 'tokens.create',
      body: { credential_id: { $result: 'deed.credential_id' }, total_supply: 1000, symbol: 'ATX' },
    },
  ],
}

export const batchResponseExample: BatchResponse = {
  results: [
    { index: 0, ref: 'deed', op: 'credentials.issue', status: 201, body: credentialExample },
    { index: 1, ref: 'token', op: 'tokens.create', status: 201, body: newTokenExample },
  ],
  dry_run: false,
}
