import { createRequire } from 'node:module'
const req = createRequire(import.meta.url)
const what = process.argv[2]
const c = process.cpuUsage()
const t = performance.now()
if (what.startsWith('req:')) req(what.slice(4))
else await import(what)
const u = process.cpuUsage(c)
console.log(((u.user + u.system) / 1000).toFixed(1), (performance.now() - t).toFixed(1))
