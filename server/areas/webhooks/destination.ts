import { isIP } from 'node:net'
import {
  type AddressPolicy,
  checkAddresses,
  checkedLookup,
  checkResolved,
  checkScheme,
  hostOf,
} from '../../platform/net/checked-lookup.js'
import { type PostOutcome, PostRefused, postJson } from './post.js'

/*
 * Where a webhook goes, checked (docs/webhooks.md, "Webhook endpoints"): the URL must be https (http only to
 * loopback, when the server runs with --allow-http-webhooks), and every address its host resolves to must be
 * allowed (server/platform/net/address-policy.ts), at creation and again at each delivery. The delivery
 * connects to the address that was checked (server/platform/net/checked-lookup.ts, shared with the
 * fetches for trusted issuers). The POST itself (./post.ts) follows no redirect, gives up after
 * 10 s and reads at most 64 KiB of the answer.
 */

export interface DestinationPolicy {
  /** `--allow-http-webhooks`: http, and loopback addresses, allowed. */
  allowHttp: boolean
}

/** The refusal of a webhook URL: what is wrong with it, for `context.reason`. */
export class DestinationRefused extends PostRefused {}

const refuse = (message: string) => new DestinationRefused(message)

const rules = (policy: DestinationPolicy): AddressPolicy => ({
  allowHttp: policy.allowHttp,
  flag: '--allow-http-webhooks',
})

/** Checks a webhook URL as it is created: scheme, then the addresses its host resolves to now. */
export async function checkDestination(raw: string, policy: DestinationPolicy): Promise<void> {
  const url = new URL(raw)
  checkScheme(url, rules(policy), refuse)
  const host = hostOf(url)
  if (isIP(host)) return checkAddresses(url, [host], rules(policy), refuse)
  await checkResolved(url, rules(policy), refuse)
}

/**
 * POSTs `body` to the webhook URL after checking it, connecting only to checked addresses (./post.ts:
 * a 2xx is a success, a redirect never followed).
 */
export async function postToDestination(
  raw: string,
  body: string,
  headers: Record<string, string>,
  policy: DestinationPolicy,
): Promise<PostOutcome> {
  let url: URL
  try {
    url = new URL(raw)
    checkScheme(url, rules(policy), refuse)
    const host = hostOf(url)
    if (isIP(host)) checkAddresses(url, [host], rules(policy), refuse)
  } catch (error) {
    return { statusCode: null, error: `refused: ${(error as Error).message}` }
  }
  return postJson(url, body, headers, { lookup: checkedLookup(url, rules(policy), refuse) })
}
