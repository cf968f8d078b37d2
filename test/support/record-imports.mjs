// Preloaded with `node --import`: records the URL of every module the program loads into the file
// named by RWA_IMPORT_LOG, through a resolve hook (hooks run on their own thread in Node 20).
import { register } from 'node:module'

register('./record-imports-hooks.mjs', import.meta.url, { data: { log: process.env.RWA_IMPORT_LOG } })
