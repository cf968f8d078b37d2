// Baseline (a): the least an HTTP JSON endpoint can cost in Node — bare node:http, no framework.
import { listen } from './serve.mjs'

const body = JSON.stringify({ hello: 'world' })

listen((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) })
  res.end(body)
})
