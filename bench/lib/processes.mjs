// Starting the servers under test as separate processes, pinned to a core, and reading their CPU time.
import { execFileSync, spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'

/** `taskset` when the machine has it and more than one core to share out; otherwise undefined. */
export const TASKSET = (() => {
  try {
    execFileSync('taskset', ['-p', String(process.pid)], { stdio: 'ignore' })
    return 'taskset'
  } catch {
    return undefined
  }
})()

/** Moves the current process (the load generator) onto `core`. */
export function pinSelf(core) {
  if (TASKSET) execFileSync(TASKSET, ['-cp', String(core), String(process.pid)], { stdio: 'ignore' })
}

/** The command line that runs `args` (a node invocation) on `core`, or as is without taskset. */
export function pinned(core, args) {
  return TASKSET && core !== undefined ? [TASKSET, '-c', String(core), ...args] : args
}

const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100
  } catch {
    return 100
  }
})()

/** CPU seconds (user + system) the process `pid` has used so far, or NaN where /proc is missing. */
export function cpuSeconds(pid) {
  const path = `/proc/${pid}/stat`
  if (!existsSync(path)) return Number.NaN
  // Fields after the command name (which may hold spaces) start at state; utime and stime are 14 and 15.
  const stat = readFileSync(path, 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS
}

/** Characters of a server's stderr kept after it started. */
const STDERR_TAIL = 64 * 1024

/**
 * Starts a server process (`node ...args`, on `core`) and resolves once it logs `listening on URL`.
 * Returns its URL, the admin key if it printed one, its pid, and `stop()` (SIGTERM, then wait).
 */
export function startServer({ name, args, core, env = {}, timeoutMs = 30_000 }) {
  const [command, ...rest] = pinned(core, [process.execPath, ...args])
  const child = spawn(command, rest, { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] })
  let stderr = ''
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)))
  let started = false
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`${name} did not start within ${timeoutMs / 1000} s:\n${stderr}`))
    }, timeoutMs)
    child.stderr.on('data', (chunk) => {
      stderr += chunk.toString()
      // Once started, the rwa server logs a line per request: keep only the tail, for error reports.
      if (started) {
        if (stderr.length > STDERR_TAIL * 2) stderr = stderr.slice(-STDERR_TAIL)
        return
      }
      const url = /listening on (http:\/\/[^\s"]+)/.exec(stderr)?.[1]
      if (!url) return
      started = true
      clearTimeout(timer)
      resolve({
        name,
        url,
        pid: child.pid,
        adminKey: /admin API key \(shown once\): (rwa_live_[A-Za-z0-9_-]{43})/.exec(stderr)?.[1],
        stderr: () => stderr,
        async stop() {
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
          const timeout = setTimeout(() => child.kill('SIGKILL'), 15_000)
          const how = await exited
          clearTimeout(timeout)
          return how
        },
      })
    })
    exited.then((how) => {
      clearTimeout(timer)
      reject(new Error(`${name} exited (${how}) before listening:\n${stderr}`))
    })
  })
}
