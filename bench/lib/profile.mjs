// Reading a V8 CPU profile (`node --cpu-prof`): where the time went, by function and by package.
import { readFileSync } from 'node:fs'

/** Reads a `.cpuprofile` file. */
export function readProfile(path) {
  return JSON.parse(readFileSync(path, 'utf8'))
}

/**
 * Self time and inclusive time per function, and self time per package (`node_modules/<pkg>`, `ours`
 * for the project's files, `node` for Node's internals, or V8's own buckets such as `(garbage
 * collector)`), as shares of the sampled time excluding `(idle)`. With `windows` (`[start, end]` pairs
 * in µs of the monotonic clock, which V8's sample times and `process.hrtime` share across processes)
 * only the samples taken inside them count: one profile of the whole server yields one summary per
 * scenario, without the seeding or the other scenarios.
 */
export function summarizeProfile(profile, { top = 25, windows } = {}) {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]))
  const self = new Map()
  let at = profile.startTime
  for (let i = 0; i < profile.samples.length; i++) {
    const delta = profile.timeDeltas[i] ?? 0
    at += delta
    if (windows && !windows.some(([start, end]) => at >= start && at <= end)) continue
    const id = profile.samples[i]
    self.set(id, (self.get(id) ?? 0) + delta)
  }
  const idle = [...nodes.values()]
    .filter((n) => n.callFrame.functionName === '(idle)')
    .reduce((t, n) => t + (self.get(n.id) ?? 0), 0)
  const busy = [...self.values()].reduce((a, b) => a + b, 0) - idle

  const selfByFrame = new Map()
  const selfByPackage = new Map()
  const inclusiveByFrame = new Map()
  const add = (map, key, value) => map.set(key, (map.get(key) ?? 0) + value)
  // Inclusive time: a frame counts once per stack even when it recurses.
  const walk = (node, onStack) => {
    const key = frameName(node.callFrame)
    let total = self.get(node.id) ?? 0
    const nested = new Set(onStack).add(key)
    for (const child of node.children ?? []) total += walk(nodes.get(child), nested)
    if (!onStack.has(key)) add(inclusiveByFrame, key, total)
    return total
  }
  for (const node of nodes.values()) {
    if (node.callFrame.functionName === '(idle)') continue
    const t = self.get(node.id) ?? 0
    add(selfByFrame, frameName(node.callFrame), t)
    add(selfByPackage, packageOf(node.callFrame), t)
  }
  walk(nodes.get(profile.nodes[0].id), new Set())
  inclusiveByFrame.delete('(root)')

  const share = (map, n = top) =>
    [...map.entries()]
      .filter(([key]) => key !== '(idle)')
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([name, us]) => ({ name, ms: Math.round(us / 1000), share: Math.round((1000 * us) / busy) / 10 }))
  return {
    busy_ms: Math.round(busy / 1000),
    idle_ms: Math.round(idle / 1000),
    self_by_package: share(selfByPackage),
    self_by_function: share(selfByFrame),
    inclusive_by_function: share(inclusiveByFrame, top * 4),
  }
}

function frameName({ functionName, url, lineNumber }) {
  if (!url) return functionName || '(anonymous)'
  const file = url.replace(/^file:\/\//, '').replace(/^.*?\/(node_modules\/|dist\/)/, '$1')
  return `${functionName || '(anonymous)'} ${file}:${lineNumber + 1}`
}

function packageOf({ functionName, url }) {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)'
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1]
  if (pkg) return pkg
  if (url.startsWith('node:') || !url.includes('/')) return 'node'
  return 'ours'
}
