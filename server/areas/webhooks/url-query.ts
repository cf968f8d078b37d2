/*
 * A webhook URL's query often carries a secret of the receiver's (`?token=...`): the endpoint's URL is
 * shown whole only to owner keys, who may change it anyway; everyone else, and everything kept for
 * good (the audit log, signed and never rewritten), gets it with each query value hidden
 * (docs/webhooks.md, "Webhook endpoints").
 */

/** What stands for a hidden query value. */
export const HIDDEN = '***'

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
