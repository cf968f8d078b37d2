/*
 * The one way the CLI fetches a URL it read from a document (a status list a credential names): a URL
 * in a file is the file author's, so the fetch is bounded (docs/cli.md, "Auditing offline"): http(s) only, at
 * most 3 redirects (each to http(s)), 10 s in all, 2 MiB of body.
 */

export const FETCH_LIMITS = {
  maxRedirects: 3,
  timeoutMs: 10_000,
  maxBodyBytes: 2 * 1024 * 1024,
} as const

/** Fetches `url` as text within `FETCH_LIMITS`; throws an Error saying which bound it hit. */
export async function boundedFetchText(
  url: string,
  limits: { maxRedirects: number; timeoutMs: number; maxBodyBytes: number } = FETCH_LIMITS,
): Promise<string> {
  const signal = AbortSignal.timeout(limits.timeoutMs)
  let current = url
  for (let redirects = 0; ; redirects++) {
    let parsed: URL
    try {
      parsed = new URL(current)
    } catch {
      throw new Error(`${JSON.stringify(current)} is not a URL`)
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      throw new Error(`only http(s) URLs are fetched, not ${parsed.protocol}`)
    }
    let response: Response
    try {
      response = await fetch(parsed, { redirect: 'manual', signal })
    } catch (error) {
      if (signal.aborted) throw new Error(`no answer within ${limits.timeoutMs / 1000} s`)
      throw new Error((error as { cause?: Error }).cause?.message ?? (error as Error).message)
    }
    if (response.status >= 300 && response.status < 400 && response.headers.has('location')) {
      await response.body?.cancel()
      if (redirects >= limits.maxRedirects) throw new Error(`more than ${limits.maxRedirects} redirects`)
      current = new URL(response.headers.get('location')!, parsed).toString()
      continue
    }
    if (!response.ok) {
      await response.body?.cancel()
      throw new Error(`HTTP ${response.status}`)
    }
    const declared = Number(response.headers.get('content-length') ?? Number.NaN)
    if (declared > limits.maxBodyBytes) {
      await response.body?.cancel()
      throw new Error(`its body is over ${limits.maxBodyBytes} bytes`)
    }
    return readCapped(response, limits.maxBodyBytes, signal, limits.timeoutMs)
  }
}

async function readCapped(
  response: Response,
  maxBytes: number,
  signal: AbortSignal,
  timeoutMs: number,
): Promise<string> {
  const reader = response.body?.getReader()
  if (!reader) return ''
  const chunks: Uint8Array[] = []
  let size = 0
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      size += value.byteLength
      if (size > maxBytes) {
        await reader.cancel()
        throw new Error(`its body is over ${maxBytes} bytes`)
      }
      chunks.push(value)
    }
  } catch (error) {
    if (signal.aborted) throw new Error(`no answer within ${timeoutMs / 1000} s`)
    throw error
  }
  return Buffer.concat(chunks).toString('utf8')
}
