import type { MasterKey } from '../../platform/signing/master-key.js'

/*
 * Webhook signing secrets at rest (README.md, "Signing keys at rest";
 * docs/webhooks.md, "Webhook endpoints"): sealed under the master key like the private signing keys
 * (AES-256-GCM, a nonce each), with the endpoint they belong to as additional data, so a stored secret
 * copied into another endpoint's row does not open. A database from before this holds them in plaintext; the
 * start seals them in place (server/custody.ts).
 */

/** The additional data an endpoint's secret is sealed with: its row. */
export const webhookSecretAad = (webhookId: string): string => `webhook_endpoints:${webhookId}`

/** The stored form of an endpoint's `whsec_` secret. */
export const sealWebhookSecret = (masterKey: MasterKey, webhookId: string, secret: string): string =>
  masterKey.seal(Buffer.from(secret, 'utf8'), webhookSecretAad(webhookId))

/** The `whsec_` secret an endpoint's row holds; throws SealOpenError if it does not open. */
export const openWebhookSecret = (masterKey: MasterKey, webhookId: string, stored: string): string =>
  masterKey.open(stored, webhookSecretAad(webhookId), `the secret of webhook ${webhookId}`).toString('utf8')
