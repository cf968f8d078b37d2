import { Counter, type Registry } from 'prom-client'

type MethodRoute = { method: string; route: string }
type MethodRouteStatus = MethodRoute & { status: string }

/** One method, route and status's count: `handed` of it already given to prom-client's counter. */
interface StatusCount {
  readonly labels: MethodRouteStatus
  count: number
  handed: number
}

/** One method and route's requests: the latency histogram's own buckets (not cumulative) and counts by status. */
interface RouteSeries {
  readonly labels: MethodRoute
  readonly buckets: Float64Array
  sum: number
  count: number
  readonly statuses: Map<number, StatusCount>
}

/** A histogram value as prom-client's `Histogram` gives its registry (`getForPromString`). */
interface HistogramValue {
  labels: { le?: number | string }
  sharedLabels: MethodRoute
  value: number
  metricName: string
  exemplar: null | undefined
}

/**
 * `rwa_http_requests_total` and `rwa_http_request_duration_seconds`, counted per series in plain
 * numbers: a request finds its series by route, method and status in nested `Map`s (the route template
 * and the method are the same strings request after request) and adds to them, where prom-client would
 * build and hash an object of its labels for the counter and again for the histogram on every request
 * (docs/performance.md, "Third pass: the router and the metrics"). At each scrape the counts are handed
 * to prom-client: the counter through its own `inc` in its `collect()`, the histogram as the values
 * prom-client's `Histogram` itself would give, so the exposition is the same text, series in the same
 * order (the order of their first request), with the same names, help, labels, buckets and sums (the
 * sum added up in the same order).
 */
export class RequestMetrics {
  readonly #bounds: readonly number[]
  readonly #byRoute = new Map<string, Map<string, RouteSeries>>()
  /** Every route's series, in the order of its first request. */
  readonly #series: RouteSeries[] = []
  /** Every status count, in the order of its first request. */
  readonly #counts: StatusCount[] = []

  constructor(registry: Registry, options: { buckets: readonly number[] }) {
    this.#bounds = [...options.buckets].sort((a, b) => a - b)
    const counts = this.#counts
    new Counter({
      name: 'rwa_http_requests_total',
      help: 'HTTP requests answered, by method, route template and status',
      labelNames: ['method', 'route', 'status'],
      registers: [registry],
      collect() {
        for (const s of counts) {
          if (s.count === s.handed) continue
          this.inc(s.labels, s.count - s.handed)
          s.handed = s.count
        }
      },
    })
    // The registry reads a metric through `getForPromString` (or `get`) and its name: prom-client's
    // `Metric` type asks for more than it uses.
    registry.registerMetric(new RequestDurations(this.#series, this.#bounds) as never)
  }

  /** One answered request: `route` is the route template, never the path. */
  answered(method: string, route: string, status: number, seconds: number): void {
    let byMethod = this.#byRoute.get(route)
    if (byMethod === undefined) {
      byMethod = new Map()
      this.#byRoute.set(route, byMethod)
    }
    let series = byMethod.get(method)
    if (series === undefined) {
      series = {
        labels: { method, route },
        buckets: new Float64Array(this.#bounds.length),
        sum: 0,
        count: 0,
        statuses: new Map(),
      }
      byMethod.set(method, series)
      this.#series.push(series)
    }
    let count = series.statuses.get(status)
    if (count === undefined) {
      count = { labels: { method, route, status: String(status) }, count: 0, handed: 0 }
      series.statuses.set(status, count)
      this.#counts.push(count)
    }
    count.count++
    // As prom-client's Histogram observes: the first bucket whose bound is at least the value, none
    // past the last (it is in +Inf, the count, only).
    series.sum += seconds
    series.count++
    const bounds = this.#bounds
    for (let i = 0; i < bounds.length; i++) {
      if (seconds <= (bounds[i] as number)) {
        ;(series.buckets[i] as number)++
        break
      }
    }
  }
}

/** The latency histogram as the registry reads a metric: its values at each scrape. */
class RequestDurations {
  readonly name = 'rwa_http_request_duration_seconds'
  readonly help = 'Time from receiving a request to its response being ready, by method and route template'
  readonly type = 'histogram'
  readonly aggregator = 'sum'

  constructor(
    private readonly series: readonly RouteSeries[],
    private readonly bounds: readonly number[],
  ) {}

  /** As prom-client's `Histogram.getForPromString`: per series its cumulative buckets, +Inf, sum and count. */
  getForPromString(): {
    name: string
    help: string
    type: string
    aggregator: string
    values: HistogramValue[]
  } {
    const bucket = `${this.name}_bucket`
    const values: HistogramValue[] = []
    for (const s of this.series) {
      let cumulative = 0
      for (let i = 0; i < this.bounds.length; i++) {
        cumulative += s.buckets[i] as number
        values.push({
          labels: { le: this.bounds[i] },
          sharedLabels: s.labels,
          value: cumulative,
          metricName: bucket,
          exemplar: null,
        })
      }
      values.push(
        {
          labels: { le: '+Inf' },
          sharedLabels: s.labels,
          value: s.count,
          metricName: bucket,
          exemplar: null,
        },
        {
          labels: {},
          sharedLabels: s.labels,
          value: s.sum,
          metricName: `${this.name}_sum`,
          exemplar: undefined,
        },
        {
          labels: {},
          sharedLabels: s.labels,
          value: s.count,
          metricName: `${this.name}_count`,
          exemplar: undefined,
        },
      )
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values }
  }

  /** As prom-client's `Histogram.get` (the registry's JSON): each value's labels in one object. */
  get(): { name: string; help: string; type: string; aggregator: string; values: object[] } {
    const data = this.getForPromString()
    const values = data.values.map(({ sharedLabels, labels, ...value }) => ({
      ...value,
      labels: { ...labels, ...sharedLabels },
    }))
    return { ...data, values }
  }
}
