// Splitting a CPU profile of the rwa server by what the time was spent on: the request's framework,
// authentication and limits, validation, statements, signing, canonical JSON, logging, the audit
// event, the verifiable log, the events outbox... One sample counts once, in one part.

/**
 * The parts a sample may belong to, decided from its stack. An *owner* on the stack takes the sample
 * whatever runs under it (a statement run by the log's append is the log's cost): of the owners on
 * the stack, the one listed first in OWNERS wins. Otherwise the innermost *layer* frame decides (a zod frame
 * under hono is validation; a service function called by a middleware's `next()` is the service's).
 */
const OWNERS = [
  // The worker is woken by the outbox's announcement after the commit: its claim is its own part.
  ['webhook worker wake-up', (f) => /\/webhooks\/worker\.js$/.test(f.url)],
  ['events outbox (enqueueEvents)', (f) => /\/events\/outbox\.js$/.test(f.url)],
  ['verifiable log append', (f) => /\/audit-log\/append\.js$/.test(f.url)],
  [
    'audit event',
    (f) =>
      f.functionName === 'insertAuditEvents' ||
      (f.functionName === 'auditRow' && /run-write\.js$/.test(f.url)),
  ],
  ['idempotency', (f) => /\/idempotency\//.test(f.url)],
  ['signing', (f) => /\/signing\//.test(f.url)],
  [
    'canonical JSON',
    (f) =>
      /node_modules\/canonicalize\//.test(f.url) ||
      /^(canonical(Facts|Json|Order)|ordered(Object|Array))$/.test(f.functionName),
  ],
  ['evaluation', (f) => /\/rwa\/transfers\/(evaluate-transfer|[a-z]+-checks)\.js$/.test(f.url)],
  ['transaction commit', (f) => f.functionName === 'commitTransaction' && /sqlite-driver\.js$/.test(f.url)],
]

const LAYERS = [
  // Inside kysely, the driver's executeQuery runs the prepared statement (better-sqlite3's native
  // call is its self time), as the held connection's `heldRows` and `directRows` do for the compiled
  // statements; everything else of kysely builds and compiles the query.
  [
    'statements: SQLite execution',
    (f) =>
      (f.functionName === 'executeQuery' && /sqlite-driver\.js$/.test(f.url)) ||
      (/^(heldRows|directRows)$/.test(f.functionName) && /held-connection\.js$/.test(f.url)) ||
      /node_modules\/better-sqlite3\//.test(f.url) ||
      (f.functionName === 'prepare' && /database\.js$/.test(f.url)),
  ],
  [
    'statements: query building (kysely)',
    (f) =>
      /node_modules\/kysely\//.test(f.url) ||
      /\/(queries|compiled-query|database|held-connection)\.js$/.test(f.url),
  ],
  [
    'service code (rwa services, rows to records)',
    (f) =>
      /dist\/server\/(areas\/rwa|pipeline\/writes|pipeline\/audit)\//.test(f.url) ||
      /dist\/src\/(proof|tlog|contract)\//.test(f.url),
  ],
  [
    'auth and limits',
    (f) =>
      /dist\/server\/(pipeline\/auth|pipeline\/limits|platform\/(limits|metering|caches|redis|organizations))\//.test(
        f.url,
      ) || /node_modules\/ioredis\//.test(f.url),
  ],
  [
    'validation',
    (f) =>
      /node_modules\/(zod|@hono\/zod-openapi|@hono\/zod-validator)\//.test(f.url) ||
      /node_modules\/hono\/dist\/validator\//.test(f.url) ||
      /dist\/server\/platform\/http\/(well-formed|body-limit)\.js$/.test(f.url),
  ],
  [
    'logging and metrics',
    (f) =>
      /node_modules\/(pino|sonic-boom|prom-client|thread-stream)\//.test(f.url) ||
      /dist\/server\/(platform\/logging|platform\/metrics|areas\/operations)\//.test(f.url),
  ],
  [
    'framework and HTTP (hono, node:http, sockets)',
    (f) =>
      /node_modules\/(hono|@hono\/node-server)\//.test(f.url) ||
      /^node:(_http|net|internal\/streams|internal\/stream_base|stream)/.test(f.url) ||
      /dist\/server\/(platform\/http\/|start\.|app\.|routes\.|pipeline\/handler\.|platform\/errors\.)/.test(
        f.url,
      ) ||
      ['writev', 'writeBuffer', 'writeUtf8String', 'writeLatin1String', 'parserOnHeadersComplete'].includes(
        f.functionName,
      ),
  ],
]

/** The names of every part, in the order a report lists them. */
export const PARTS = [
  'framework and HTTP (hono, node:http, sockets)',
  'auth and limits',
  'validation',
  'idempotency',
  'statements: query building (kysely)',
  'statements: SQLite execution',
  'transaction commit',
  'evaluation',
  'signing',
  'canonical JSON',
  'service code (rwa services, rows to records)',
  'logging and metrics',
  'audit event',
  'verifiable log append',
  'events outbox (enqueueEvents)',
  'webhook worker wake-up',
  '(garbage collector)',
  'other (promises, async hooks, Node internals)',
]

/**
 * Milliseconds of self time per part, over the samples inside `windows` (`[start, end]` µs pairs of
 * the monotonic clock, as in profile.mjs), and the busy total (idle excluded).
 */
export function splitProfile(profile, windows) {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]))
  const partOf = new Map()
  // Walk from the root, carrying the first-listed owner on the stack so far and the innermost layer.
  const visit = (node, owner, layer) => {
    const f = node.callFrame
    const rank = OWNERS.findIndex(([, test]) => test(f))
    const ownHere = rank >= 0 && (owner === undefined || rank < owner) ? rank : owner
    const layerHere = LAYERS.find(([, test]) => test(f))?.[0] ?? layer
    let part = ownHere === undefined ? layerHere : OWNERS[ownHere][0]
    if (f.functionName === '(garbage collector)') part = '(garbage collector)'
    if (f.functionName === '(idle)') part = '(idle)'
    if (f.functionName === '(program)') part = part ?? 'other (promises, async hooks, Node internals)'
    partOf.set(node.id, part ?? 'other (promises, async hooks, Node internals)')
    for (const child of node.children ?? []) visit(nodes.get(child), ownHere, layerHere)
  }
  visit(nodes.get(profile.nodes[0].id), undefined, undefined)
  const us = new Map()
  let at = profile.startTime
  for (let i = 0; i < profile.samples.length; i++) {
    at += profile.timeDeltas[i] ?? 0
    if (windows && !windows.some(([start, end]) => at >= start && at <= end)) continue
    const part = partOf.get(profile.samples[i])
    us.set(part, (us.get(part) ?? 0) + (profile.timeDeltas[i] ?? 0))
  }
  us.delete('(idle)')
  const busy = [...us.values()].reduce((a, b) => a + b, 0)
  return {
    busy_ms: busy / 1000,
    parts: PARTS.map((name) => ({ name, ms: (us.get(name) ?? 0) / 1000, share: (us.get(name) ?? 0) / busy })),
  }
}
