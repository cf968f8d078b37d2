// One bounded load run with autocannon, in this process (the load generator), and what it measured.
import autocannon from 'autocannon'
import { cpuSeconds } from './processes.mjs'

/**
 * Loads `url` for `seconds` with `connections` keep-alive connections. `request` is either a fixed
 * `{ method, path, headers, body }` or has `setupRequest(req)` to vary each request (keys, ids, bodies).
 * Returns req/s, p50/p99 latency (ms, every response, measured here at full precision: autocannon's
 * own histogram has 1 ms resolution), status counts, and the CPU the server (`serverPid`) and this
 * process used per second of the run.
 *
 * With `urls` (several instances of one server, as behind a load balancer) the connections are split
 * evenly among them, each instance loaded by its own autocannon at the same time, and the figures are
 * the instances' together (`serverPids`: the CPU of them all). `overallRate` (req/s) paces the
 * requests instead of sending each as soon as the last is answered.
 */
export async function loadRun({
  url,
  urls = [url],
  seconds,
  connections,
  request,
  serverPid,
  serverPids = [serverPid],
  overallRate,
}) {
  const latencies = new LatencyLog()
  const serverCpu = () => serverPids.reduce((sum, pid) => sum + cpuSeconds(pid), 0)
  const serverCpu0 = serverCpu()
  const ownCpu0 = process.cpuUsage()
  const started = process.hrtime.bigint()
  const results = await Promise.all(
    urls.map((target, i) => {
      const instance = autocannon({
        url: target,
        // Split evenly; the first instances take the remainder.
        connections: Math.floor(connections / urls.length) + (i < connections % urls.length ? 1 : 0),
        duration: seconds,
        // A slow response is a figure, not an error; a hung one is an error.
        timeout: 10,
        // A steady client (the flood scenario's measured reads) rather than as fast as answered.
        ...(overallRate === undefined ? {} : { overallRate: overallRate / urls.length }),
        requests: [request],
      })
      instance.on('response', (_client, _status, _bytes, ms) => latencies.add(ms))
      return instance
    }),
  )
  const wall = Number(process.hrtime.bigint() - started) / 1e9
  const own = process.cpuUsage(ownCpu0)
  const sum = (pick) => results.reduce((n, r) => n + pick(r), 0)
  const statusCodes = {}
  for (const result of results) {
    for (const [code, s] of Object.entries(result.statusCodeStats))
      statusCodes[code] = (statusCodes[code] ?? 0) + s.count
  }
  const requests = sum((r) => r.requests.total)
  return {
    seconds: round(wall, 2),
    requests,
    rps: round(requests / wall, 0),
    p50_ms: round(latencies.percentile(50), 3),
    p99_ms: round(latencies.percentile(99), 3),
    max_ms: round(latencies.percentile(100), 3),
    non2xx: sum((r) => r.non2xx),
    errors: sum((r) => r.errors),
    timeouts: sum((r) => r.timeouts),
    status_codes: statusCodes,
    // Fraction of one core used during the run: near 1.0 for the server means it was the bottleneck;
    // near 1.0 for the generator means the generator may have been. Several instances: their sum.
    server_cpu: round((serverCpu() - serverCpu0) / wall, 2),
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
