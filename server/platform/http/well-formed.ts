import type { Context } from 'hono'
import type { FieldError } from '../../../src/contract/errors.js'
import { printableText, refusedTextOf } from '../../../src/contract/text.js'

/*
 * Text that is not data (NUL and the C0 controls but tab, LF and CR;
 * docs/verification.md, "Text is data, never control", src/contract/text.ts) or not well-formed Unicode is
 * refused wherever it enters, once, after validation (the app's validation hook calls this for the body, the
 * query and the path of every route). A JSON string may carry a lone UTF-16 surrogate (`"\ud800"`); stored,
 * it would come back as U+FFFD while a signature made over the original kept it, so the record and its
 * signature would disagree. In a URL the same text arrives as a percent-escape that is not UTF-8
 * (`%ED%A0%80`), which the router leaves undecoded rather than refuse.
 */

const URL_MESSAGE = 'not well-formed Unicode (a percent-escape that is not UTF-8)'

/** Every string (and object key) in `value` that is refused text, by its dotted path. */
export function illFormedStrings(value: unknown, path: string[] = []): FieldError[] {
  if (typeof value === 'string') {
    const refused = refusedTextOf(value)
    return refused === null ? [] : [{ path: path.join('.'), message: refused }]
  }
  if (Array.isArray(value)) return value.flatMap((item, i) => illFormedStrings(item, [...path, String(i)]))
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([key, item]) => {
      const refused = refusedTextOf(key)
      return refused !== null
        ? [{ path: [...path, printableText(key)].join('.'), message: refused }]
        : illFormedStrings(item, [...path, key])
    })
  }
  return []
}

const decodes = (raw: string, decode: (s: string) => string): boolean => {
  try {
    decode(raw)
    return true
  } catch {
    return false
  }
}
const decodeQueryPart = (raw: string) => decodeURIComponent(raw.replace(/\+/g, ' '))

/** Query parameters whose name or value is a percent-escape that is not UTF-8, by name. */
export function undecodableQueryFields(url: string): FieldError[] {
  const start = url.indexOf('?')
  if (start === -1) return []
  return url
    .slice(start + 1)
    .split('&')
    .flatMap((part) => {
      const [name = '', ...value] = part.split('=')
      if (decodes(name, decodeQueryPart) && decodes(value.join('='), decodeQueryPart)) return []
      return [{ path: decodes(name, decodeQueryPart) ? decodeQueryPart(name) : name, message: URL_MESSAGE }]
    })
}

/** Path parameters (`:id` of `routePath`) whose raw segment is a percent-escape that is not UTF-8. */
export function undecodableParams(url: string, routePath: string): FieldError[] {
  const segments = new URL(url).pathname.split('/')
  return routePath.split('/').flatMap((pattern, i) => {
    if (!pattern.startsWith(':') || decodes(segments[i] ?? '', decodeURIComponent)) return []
    return [{ path: pattern.slice(1).replace(/\{.*$/, ''), message: URL_MESSAGE }]
  })
}

/** Whether any string (or object key) in `value` is refused text; allocates nothing. */
function holdsRefusedText(value: unknown): boolean {
  if (typeof value === 'string') return refusedTextOf(value) !== null
  if (Array.isArray(value)) return value.some(holdsRefusedText)
  if (value !== null && typeof value === 'object') {
    for (const key in value) {
      if (refusedTextOf(key) !== null || holdsRefusedText((value as Record<string, unknown>)[key]))
        return true
    }
  }
  return false
}

/**
 * What is not well-formed in the validated `data` of `target` (`json`, `query`, `param`) of a request.
 * Runs on every request, so it first asks whether anything can be wrong: a URL without `%` has no
 * percent-escape to decode, and the paths of ill-formed strings are only built when there is one.
 */
export function illFormedInput(target: string, data: unknown, c: Context): FieldError[] {
  const url = c.req.url
  const fromUrl =
    !url.includes('%') || (target !== 'query' && target !== 'param')
      ? []
      : target === 'query'
        ? undecodableQueryFields(url)
        : undecodableParams(url, c.req.routePath)
  if (!holdsRefusedText(data)) return fromUrl
  return [...fromUrl, ...illFormedStrings(data)]
}
