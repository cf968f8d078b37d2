/**
 * What must never appear in a server log line: API keys, signatures and tokens (compact JWS/JWT),
 * private keys, payment-provider secrets and signatures, and the bodies of requests. Every harness and
 * every server process runs its log through this when it closes, so the whole HTTP suite checks it.
 */
const SECRET_PATTERNS: [string, RegExp][] = [
  ['an API key', /rwa_live_[A-Za-z0-9_-]{43}/],
  ['a compact JWS or JWT', /eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]{16,}/],
  ['a PEM key', /-----BEGIN [A-Z ]*KEY-----/],
  ['a private JWK member', /\\?"d\\?"\s*:\s*\\?"/],
  ['a Stripe secret', /\b(sk|rk)_(test|live)_[A-Za-z0-9]+|whsec_[A-Za-z0-9]+/],
  ['a Stripe-Signature', /\bt=\d+,v1=[0-9a-f]+/],
]

/** The only fields a request's log line may carry. */
export const REQUEST_LINE_FIELDS = new Set([
  'level',
  'time',
  'pid',
  'hostname',
  'msg',
  'request_id',
  'method',
  'route',
  'path',
  'status',
  'duration_ms',
  'org_id',
  'key_id',
])

/** Bodies shorter than this are too generic to look for (`{}`, `[]`). */
const MIN_BODY_LENGTH = 12

/**
 * Every reason a log line breaks the rule, as `line N: reason`. `sent` holds what the test sent: keys
 * are found by pattern anyway; bodies are looked for verbatim and as they would appear JSON-escaped.
 */
export function secretsInLog(lines: readonly string[], sent: { bodies?: Iterable<string> } = {}): string[] {
  // Each body as sent and JSON-escaped, made once: escaping a 1 MiB body for every line took 30 s of
  // one file's close. A body longer than a line cannot be in it.
  const bodies = new Set<string>()
  for (const body of sent.bodies ?? []) {
    if (body.length < MIN_BODY_LENGTH) continue
    bodies.add(body)
    bodies.add(JSON.stringify(body).slice(1, -1))
  }
  const problems: string[] = []
  lines.forEach((line, index) => {
    const where = `line ${index + 1}`
    for (const [what, pattern] of SECRET_PATTERNS) {
      if (pattern.test(line)) problems.push(`${where}: ${what}: ${line.slice(0, 300)}`)
    }
    for (const body of bodies) {
      if (body.length <= line.length && line.includes(body)) {
        problems.push(`${where}: a request body: ${line.slice(0, 300)}`)
        break
      }
    }
    let record: Record<string, unknown> | undefined
    try {
      record = JSON.parse(line)
    } catch {}
    if (record?.msg === 'request') {
      const extra = Object.keys(record).filter((field) => !REQUEST_LINE_FIELDS.has(field))
      if (extra.length > 0) problems.push(`${where}: request line with unexpected fields ${extra.join(', ')}`)
    }
  })
  return problems
}

/** Throws listing every line that breaks the rule. */
export function assertNoSecretsInLog(
  lines: readonly string[],
  sent: { bodies?: Iterable<string> } = {},
): void {
  const problems = secretsInLog(lines, sent)
  if (problems.length > 0) {
    throw new Error(`the server logged what it must never log:\n${problems.slice(0, 10).join('\n')}`)
  }
}
