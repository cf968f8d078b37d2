import { createHmac, randomBytes } from 'node:crypto'

/*
 * Standard Webhooks signatures (https://www.standardwebhooks.com): the secret is `whsec_` and the
 * base64 of random bytes; a delivery carries `webhook-id`, `webhook-timestamp` (seconds) and
 * `webhook-signature: v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`, keyed with the secret's
 * decoded bytes. `rwa listen` signs its forwards the same way (src/cli, with the same function).
 */

const PREFIX = 'whsec_'

/** A new signing secret: 32 random bytes. */
export const newWebhookSecret = (): string => `${PREFIX}${randomBytes(32).toString('base64')}`

/** The `v1,<base64>` signature of a message. */
export function signWebhook(secret: string, id: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64')
  const mac = createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64')
  return `v1,${mac}`
}

/** The three Standard Webhooks headers of a delivery. */
export function webhookHeaders(
  secret: string,
  id: string,
  timestampSeconds: number,
  body: string,
): Record<string, string> {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': signWebhook(secret, id, timestampSeconds, body),
  }
}
