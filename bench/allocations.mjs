#!/usr/bin/env node
// `node --experimental-websocket bench/allocations.mjs [--kind transfer|credential] [--batch N]
// [--posts N]` (after `npm run build`): what the rwa server allocates per operation, and where. The
// garbage collector's share of a batch (bench/post-profile.mjs) is the price of these bytes.
//
// A seeded, warmed server (bench/lib/post-target.mjs) runs under `--inspect` on 127.0.0.1:--port; over
// the inspector protocol, V8's sampling heap profiler records every allocation of the measured POSTs
// (or batches), those the garbage collector has since freed included (`includeObjectsCollectedBy...`),
// one sample per --interval bytes on average. Printed: the bytes per operation, and the functions that
// allocated most, by their own allocations and with what they call.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { batchTo, postTarget, postTo } from './lib/post-target.mjs'
import { eachLimited } from './lib/seed.mjs'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const { values: flags } = parseArgs({
  options: {
    kind: { type: 'string', default: 'credential' },
    batch: { type: 'string' },
    posts: { type: 'string', default: '4' },
    orgs: { type: 'string', default: '8' },
    port: { type: 'string', default: '9339' },
    interval: { type: 'string', default: '16384' },
    top: { type: 'string', default: '25' },
    // Writes the sampled profile (Chrome DevTools' .heapprofile) there too.
    keep: { type: 'string' },
  },
})
if (typeof WebSocket === 'undefined') throw new Error('run with node --experimental-websocket (Node 20)')
const BATCH = flags.batch === undefined ? undefined : Number(flags.batch)
const OPS = Number(flags.posts) * (BATCH ?? 1)

const work = mkdtempSync(join(tmpdir(), 'rwa-bench-alloc-'))
let target
try {
  target = await postTarget({
    name: 'alloc',
    bin: join(ROOT, 'bin/rwa'),
    work,
    kind: flags.kind,
    prefix: 'alloc',
    orgs: Number(flags.orgs),
    nodeArgs: [`--inspect=127.0.0.1:${flags.port}`],
  })
  const send = (fn) =>
    eachLimited(Array.from({ length: Number(flags.posts) }), BATCH ? 1 : 8, () =>
      BATCH ? batchTo(target, BATCH) : postTo(target),
    ).then(fn)
  await send(() => {}) // one more warm-up round of the same shape
  const inspector = await connect(flags.port)
  await inspector.call('HeapProfiler.enable')
  await inspector.call('HeapProfiler.startSampling', {
    samplingInterval: Number(flags.interval),
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  })
  await send(() => {})
  const { profile } = await inspector.call('HeapProfiler.stopSampling')
  inspector.close()
  if (flags.keep) writeFileSync(flags.keep, JSON.stringify(profile))
  report(profile)
} finally {
  // Also when a step failed: the server (under --inspect) must not outlive this process.
  await target?.server.stop()
  rmSync(work, { recursive: true, force: true })
}

/** The server's inspector: `call(method, params)` answers the result. */
async function connect(port) {
  const [{ webSocketDebuggerUrl }] = await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()
  const socket = new WebSocket(webSocketDebuggerUrl)
  await new Promise((resolve, reject) => {
    socket.addEventListener('open', resolve)
    socket.addEventListener('error', reject)
  })
  let id = 0
  const waiting = new Map()
  socket.addEventListener('message', (event) => {
    const message = JSON.parse(event.data)
    const settle = waiting.get(message.id)
    if (!settle) return
    waiting.delete(message.id)
    if (message.error) settle.reject(new Error(`${message.error.message}`))
    else settle.resolve(message.result)
  })
  return {
    call: (method, params = {}) =>
      new Promise((resolve, reject) => {
        waiting.set(++id, { resolve, reject })
        socket.send(JSON.stringify({ id, method, params }))
      }),
    close: () => socket.close(),
  }
}

/** Bytes per operation, then the top allocating functions, by their own bytes and inclusive. */
function report(profile) {
  const own = new Map()
  const inclusive = new Map()
  let total = 0
  const visit = (node, above) => {
    const frame = node.callFrame
    const name = `${frame.functionName || '(anonymous)'} ${frame.url.split('/').slice(-2).join('/')}:${frame.lineNumber + 1}`
    const bytes = node.selfSize ?? 0
    total += bytes
    own.set(name, (own.get(name) ?? 0) + bytes)
    const path = new Set(above).add(name)
    for (const n of path) inclusive.set(n, (inclusive.get(n) ?? 0) + bytes)
    for (const child of node.children ?? []) visit(child, path)
  }
  visit(profile.head, new Set())
  const what = BATCH ? `${flags.kind} in batches of ${BATCH}` : `${flags.kind} POST`
  const out = (line) => process.stdout.write(`${line}\n`)
  out(
    `${what}: ${Math.round(total / OPS / 1024)} KiB allocated per operation (${OPS} operations, ${Math.round(total / 1e6)} MB)`,
  )
  const top = (map, title) => {
    out(`-- ${title}`)
    for (const [name, bytes] of [...map].sort((a, b) => b[1] - a[1]).slice(0, Number(flags.top))) {
      out(
        `${(bytes / OPS / 1024).toFixed(1).padStart(7)} KiB  ${((100 * bytes) / total).toFixed(1).padStart(5)} %  ${name}`,
      )
    }
  }
  top(own, 'own allocations')
  top(inclusive, 'with what they call')
}
