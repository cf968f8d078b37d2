import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client'
import { RequestMetrics } from './request-metrics.js'
import { type TransferStatus, transferStatusSchema } from '../../../src/contract/rwa.js'

/**
 * How a transfer was recorded: approved or rejected by its evaluation, or forced by an agent
 * (docs/governance.md, "Forced transfer").
 */
export type TransferDecision = TransferStatus
const TRANSFER_DECISIONS: readonly TransferDecision[] = transferStatusSchema.options

/** Request latency buckets in seconds: most answers take well under a millisecond to tens of ms. */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5]
const FLUSH_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5]

/** An error's `code` as a label: SQLITE_BUSY, a PostgreSQL SQLSTATE such as 40001, ECONNREFUSED. */
function errorCodeLabel(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === 'string' && /^[A-Za-z0-9_]{1,64}$/.test(code) ? code : 'unknown'
}

/**
 * The server's Prometheus metrics (prom-client), in a registry of its own so each app context counts
 * alone. Every name starts with `rwa_`; with `processMetrics` the registry also carries prom-client's
 * process and Node.js metrics (`process_*`, `nodejs_*`). The methods are the hooks the rest of the
 * server calls; nothing here reads a clock or the database.
 */
export class ServerMetrics {
  readonly registry = new Registry()
  private readonly httpRequests: RequestMetrics
  private readonly rateLimitedTotal: Counter<'tier' | 'window'>
  private readonly publicRefusals: Counter<'answer'>
  private readonly transferDecisions: Counter<'decision'>
  private readonly usageFlushDuration: Histogram
  private readonly usageFlushFailures: Counter
  private readonly databaseErrors: Counter<'code'>
  private readonly redisErrors: Counter<'operation'>
  private usageBacklog: () => number = () => 0

  constructor(options: { processMetrics?: boolean } = {}) {
    const registers = [this.registry]
    this.httpRequests = new RequestMetrics(this.registry, { buckets: LATENCY_BUCKETS })
    this.rateLimitedTotal = new Counter({
      name: 'rwa_rate_limited_total',
      help: 'Requests refused with 429, by the tier whose limits applied (pro during a trial) and window',
      labelNames: ['tier', 'window'],
      registers,
    })
    this.publicRefusals = new Counter({
      name: 'rwa_public_rate_limited_total',
      help: 'Requests without a valid API key refused with 429 by the per-client bucket (--public-rate-limit), by how the refusal was answered: at once, or held until Retry-After (a client that did not wait); refusals made before routing are not in rwa_http_requests_total',
      labelNames: ['answer'],
      registers,
    })
    for (const answer of ['at_once', 'held']) this.publicRefusals.inc({ answer }, 0)
    this.transferDecisions = new Counter({
      name: 'rwa_transfer_decisions_total',
      help: 'Transfers recorded, by decision: approved, rejected, or forced by an agent',
      labelNames: ['decision'],
      registers,
    })
    for (const decision of TRANSFER_DECISIONS) this.transferDecisions.inc({ decision }, 0)
    this.usageFlushDuration = new Histogram({
      name: 'rwa_usage_flush_duration_seconds',
      help: 'Time to write the buffered usage counters to the database, per flush',
      buckets: FLUSH_BUCKETS,
      registers,
    })
    this.usageFlushFailures = new Counter({
      name: 'rwa_usage_flush_failures_total',
      help: 'Usage flushes that failed (their counts are kept and retried on the next flush)',
      registers,
    })
    const metrics = this
    new Gauge({
      name: 'rwa_usage_backlog_requests',
      help: 'Requests counted in memory whose usage is not yet stored in the database',
      registers,
      collect() {
        this.set(metrics.usageBacklog())
      },
    })
    this.databaseErrors = new Counter({
      name: 'rwa_database_errors_total',
      help: 'Database statements that failed, by error code (SQLite result code or PostgreSQL SQLSTATE; constraint codes are mostly answered as 409)',
      labelNames: ['code'],
      registers,
    })
    this.redisErrors = new Counter({
      name: 'rwa_redis_errors_total',
      help: 'Redis commands or connections that failed, by operation',
      labelNames: ['operation'],
      registers,
    })
    if (options.processMetrics) collectDefaultMetrics({ register: this.registry })
  }

  /** One answered request: `route` is the route template (`/console/rwa/tokens/{id}`), never the path. */
  requestAnswered(method: string, route: string, status: number, seconds: number): void {
    this.httpRequests.answered(method, route, status, seconds)
  }

  /** A request refused with 429 by the `window` limit of `tier`. */
  rateLimited(tier: string, window: 'minute' | 'day'): void {
    this.rateLimitedTotal.inc({ tier, window })
  }

  /** A request refused by the per-client bucket of requests without a valid key, answered at once or held. */
  publicRateLimited(answer: 'at_once' | 'held'): void {
    this.publicRefusals.inc({ answer })
  }

  /** A transfer recorded (called after its transaction committed). */
  transferDecided(decision: TransferDecision): void {
    this.transferDecisions.inc({ decision })
  }

  /** One usage flush that wrote something, and whether it succeeded. */
  usageFlushed(seconds: number, ok: boolean): void {
    this.usageFlushDuration.observe(seconds)
    if (!ok) this.usageFlushFailures.inc()
  }

  /** Where the usage backlog gauge reads its value at each scrape. */
  watchUsageBacklog(read: () => number): void {
    this.usageBacklog = read
  }

  /** A failed database statement (any dialect): counted by the error's code. */
  databaseError(error: unknown): void {
    this.databaseErrors.inc({ code: errorCodeLabel(error) })
  }

  /**
   * A failed Redis command or lost connection. `operation` is a short fixed name of what failed
   * (`connect`, `limit`, `publish`, `subscribe`...), never a key or an argument.
   */
  redisError(operation: string): void {
    this.redisErrors.inc({ operation })
  }

  /** The Prometheus text exposition of every metric. */
  text(): Promise<string> {
    return this.registry.metrics()
  }

  get contentType(): string {
    return this.registry.contentType
  }
}
