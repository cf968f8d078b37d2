// The flood of the flood scenario (bench/lib/flood.mjs), in a process of its own so that its work does
// not delay the measured client's event loop: `connections` keep-alive connections sending the given
// GET paths in turn, as fast as the server answers, for `seconds`. Prints one JSON line: requests,
// req/s and the count of each status.
import autocannon from 'autocannon'

const { url, paths, connections, seconds } = JSON.parse(process.argv[2])
const result = await autocannon({
  url,
  connections,
  duration: seconds,
  timeout: 10,
  requests: paths.map((path) => ({ method: 'GET', path })),
})
const statusCodes = {}
for (const [code, s] of Object.entries(result.statusCodeStats)) statusCodes[code] = s.count
process.stdout.write(
  `${JSON.stringify({
    requests: result.requests.total,
    rps: Math.round(result.requests.total / seconds),
    status_codes: statusCodes,
    errors: result.errors,
    timeouts: result.timeouts,
  })}\n`,
)
