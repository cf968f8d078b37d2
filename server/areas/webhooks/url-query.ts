/*
 * A webhook URL often carries a secret of the receiver's: in its query (`?token=...`) or in its path
 * (Slack's `https://hooks.slack.com/services/T000/B000/XXXX`, Discord's `/api/webhooks/ID/TOKEN`,
 * Zapier's `/hooks/catch/ID/TOKEN/`). The endpoint's URL is shown whole only to owner keys of its
 * organization, who may change it anyway; everyone else, and everything kept for good (the audit log,
 * signed and never rewritten), gets it with those parts hidden (docs/webhooks.md, "Webhook endpoints").
 */

/** What stands for a hidden part of a URL. */
export const HIDDEN = '***'

/** Where the path of a URL (`scheme://authority/path?query#fragment`) starts and ends. */
function pathSpan(url: string): { start: number; end: number } {
  const authority = url.indexOf('//') + 2
  const afterAuthority = url.slice(authority).search(/[/?#]/)
  const start = afterAuthority < 0 ? url.length : authority + afterAuthority
  const stop = url.slice(start).search(/[?#]/)
  return { start, end: stop < 0 ? url.length : start + stop }
}

/**
 * The URL with its path kept to the first segment and the rest hidden (`/services/***`): the first
 * segment names the receiver's service (`/services`, `/api`, `/hooks`) and is seldom a secret, while
 * what follows is where path-token receivers put theirs. A path of one segment is kept as it is.
 */
export function hidePathBeyondFirst(url: string): string {
  const { start, end } = pathSpan(url)
  const path = url.slice(start, end)
  const second = path.indexOf('/', 1)
  if (second < 0 || second === path.length - 1) return url
  return `${url.slice(0, start)}${path.slice(0, second + 1)}${HIDDEN}${url.slice(end)}`
}

/**
 * The URL with the value of every query parameter replaced by `***`, names kept (`?token=***&v=***`);
 * a parameter without `=` may be a bare token and is hidden whole. Everything else as stored.
 */
export function hideQueryValues(url: string): string {
  // The query runs from the first `?` to the fragment (a `?` inside the fragment starts none).
  const hash = url.indexOf('#')
  const end = hash < 0 ? url.length : hash
  const start = url.indexOf('?')
  if (start < 0 || start > end) return url
  const query = url
    .slice(start + 1, end)
    .split('&')
    .map((part) => {
      if (part === '') return part
      const equals = part.indexOf('=')
      return equals < 0 ? HIDDEN : `${part.slice(0, equals + 1)}${HIDDEN}`
    })
    .join('&')
  return `${url.slice(0, start + 1)}${query}${url.slice(end)}`
}

/**
 * A webhook URL as anyone but its organization's owner keys reads it, and as the audit log keeps it:
 * its path beyond the first segment and its query values hidden.
 */
export const hideUrlSecrets = (url: string): string => hideQueryValues(hidePathBeyondFirst(url))
