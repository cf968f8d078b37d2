// One bounded load run with autocannon, in this process (the load generator), and what it measured.
import autocannon from 'autocannon'
import { cpuSeconds } from './processes.mjs'

/**
 * Loads `url` for `seconds` with `connections` keep-alive connections. `request` is either a fixed
 * `{ method, path, headers, body }` or has `setupRequest(req)` to vary each request (keys, ids, bodies).
 * Returns req/s, p50/p99 latency (ms, every response, measured here at full precision: autocannon's
 * own histogram has 1 ms resolution), status counts, and the CPU the server (`serverPid`) and this
 * process used per second of the run.
 */
export async function loadRun({ url, seconds, connections, request, serverPid }) {
  const latencies = new LatencyLog()
  const serverCpu0 = cpuSeconds(serverPid)
  const ownCpu0 = process.cpuUsage()
  const started = process.hrtime.bigint()
  const instance = autocannon({
    url,
    connections,
    duration: seconds,
    // A slow response is a figure, not an error; a hung one is an error.
    timeout: 10,
    requests: [request],
  })
  instance.on('response', (_client, _status, _bytes, ms) => latencies.add(ms))
  const result = await instance
  const wall = Number(process.hrtime.bigint() - started) / 1e9
  const own = process.cpuUsage(ownCpu0)
  const statusCodes = Object.fromEntries(
    Object.entries(result.statusCodeStats).map(([code, s]) => [code, s.count]),
  )
  return {
    seconds: round(wall, 2),
    requests: result.requests.total,
    rps: round(result.requests.total / wall, 0),
    p50_ms: round(latencies.percentile(50), 3),
    p99_ms: round(latencies.percentile(99), 3),
    max_ms: round(latencies.percentile(100), 3),
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    status_codes: statusCodes,
    // Fraction of one core used during the run: near 1.0 for the server means it was the bottleneck;
    // near 1.0 for the generator means the generator may have been.
    server_cpu: round((cpuSeconds(serverPid) - serverCpu0) / wall, 2),
    generator_cpu: round((own.user + own.system) / 1e6 / wall, 2),
  }
}

/** Response times in ms, kept whole so percentiles are exact. */
class LatencyLog {
  values = new Float64Array(1 << 16)
  count = 0
  add(ms) {
    if (this.count === this.values.length) {
      const bigger = new Float64Array(this.values.length * 2)
      bigger.set(this.values)
      this.values = bigger
    }
    this.values[this.count++] = ms
  }
  percentile(p) {
    if (this.count === 0) return Number.NaN
    const sorted = this.values.subarray(0, this.count).sort()
    return sorted[Math.min(this.count - 1, Math.ceil((p / 100) * this.count) - 1)]
  }
}

export function round(value, digits) {
  const f = 10 ** digits
  return Math.round(value * f) / f
}
