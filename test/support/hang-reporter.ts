import { execFileSync } from 'node:child_process'
import type { Reporter, TestCase, TestModule, TestRunEndReason, TestSpecification, Vitest } from 'vitest/node'

/*
 * A test file that never ends is invisible to the default reporter (it prints a file when the file
 * ends), and a run that never ends is only ended by CI's own limit, with nothing said. This reporter
 * says which file is stuck and where, and bounds the run:
 *
 * - a file with no news (no test started or ended) for STALL_MS is named on stderr, with the test it is
 *   in and the state of the workers (busy or waiting), again every minute it stays so;
 * - after GIVE_UP_MS without news the run is stopped with exit code 1, naming the file;
 * - a run whose every file has ended but whose process is still alive EXIT_GRACE_MS later exits with
 *   the run's own result, saying what held it: 0 only when every file passed (or was skipped) and no
 *   unhandled error was caught, whether or not vitest got as far as ending the run.
 *
 * Not in watch mode (alive between runs on purpose) nor with coverage (reported after the last file).
 */
const STALL_MS = Number(process.env.RWA_TEST_STALL_MS ?? 5 * 60_000)
const GIVE_UP_MS = Number(process.env.RWA_TEST_GIVE_UP_MS ?? 15 * 60_000)
const EXIT_GRACE_MS = Number(process.env.RWA_TEST_EXIT_GRACE_MS ?? 2 * 60_000)
const CHECK_MS = Math.min(60_000, STALL_MS / 2, EXIT_GRACE_MS / 2)

interface Running {
  file: string
  since: number
  news: number
  where: string
}

export default class HangReporter implements Reporter {
  private running = new Map<string, Running>()
  private timer: NodeJS.Timeout | undefined
  /** When a file last ended: a run with none running long after it has stopped between files. */
  private lastEnd = Date.now()
  private vitest: Vitest | undefined
  private files = 0
  private ended: TestModule[] = []

  onInit(vitest: Vitest): void {
    this.vitest = vitest
  }

  onTestRunStart(specifications: ReadonlyArray<TestSpecification>): void {
    // Watch mode stays alive on purpose between runs, and a coverage report is made after the last
    // file ends: neither is a hang.
    if (this.vitest?.config.watch || this.vitest?.config.coverage?.enabled) return
    this.running.clear()
    this.ended = []
    this.lastEnd = Date.now()
    this.files = specifications.length
    this.timer = setInterval(() => this.check(), CHECK_MS)
    this.timer.unref()
  }

  onTestModuleQueued(module: TestModule): void {
    const now = Date.now()
    this.running.set(this.key(module), { file: this.name(module), since: now, news: now, where: 'loading' })
  }

  onTestModuleCollected(module: TestModule): void {
    this.touch(module, 'collected')
  }

  onTestCaseReady(test: TestCase): void {
    this.touch(test.module, `in "${test.fullName}"`)
  }

  onTestCaseResult(test: TestCase): void {
    this.touch(test.module, `after "${test.fullName}"`)
  }

  onTestModuleEnd(module: TestModule): void {
    this.running.delete(this.key(module))
    this.ended.push(module)
    this.lastEnd = Date.now()
  }

  /** Whether every file ended well and nothing was caught outside a test: the run's own verdict. */
  private passed(): boolean {
    const unhandled = this.vitest?.state.getUnhandledErrors().length ?? 0
    return unhandled === 0 && this.ended.every((m) => m.state() === 'passed' || m.state() === 'skipped')
  }

  onTestRunEnd(
    _modules: ReadonlyArray<TestModule>,
    errors: ReadonlyArray<unknown>,
    reason: TestRunEndReason,
  ): void {
    if (this.timer) clearInterval(this.timer)
    if (this.vitest?.config.watch || this.vitest?.config.coverage?.enabled) return
    // Unreferenced: it fires only if something else keeps the process alive after the run.
    setTimeout(() => {
      const handles = (process as unknown as { _getActiveHandles(): object[] })._getActiveHandles()
      process.stderr.write(
        `\n[hang-reporter] the run ended ${EXIT_GRACE_MS / 1000} s ago and the process is still alive ` +
          `(handles: ${handles.map((h) => h.constructor?.name).join(', ')}); exiting\n`,
      )
      exitWithoutDescendants(reason === 'passed' && errors.length === 0 ? Number(process.exitCode ?? 0) : 1)
    }, EXIT_GRACE_MS).unref()
  }

  private key(module: TestModule): string {
    return `${module.project.name} ${module.moduleId}`
  }

  private name(module: TestModule): string {
    return `[${module.project.name}] ${module.relativeModuleId}`
  }

  private touch(module: TestModule, where: string): void {
    const entry = this.running.get(this.key(module))
    if (entry) {
      entry.news = Date.now()
      entry.where = where
    }
  }

  private check(): void {
    const now = Date.now()
    if (this.running.size === 0 && this.ended.length >= this.files && now - this.lastEnd >= EXIT_GRACE_MS) {
      const passed = this.passed()
      process.stderr.write(
        `\n[hang-reporter] every test file (${this.ended.length}) ended ${Math.round((now - this.lastEnd) / 1000)} s ago ` +
          `and vitest has not ended the run: exiting with the files' result (${passed ? 'passed' : 'failed'})\n${workers()}`,
      )
      exitWithoutDescendants(passed ? 0 : 1)
    }
    if (this.running.size === 0 && now - this.lastEnd >= STALL_MS) {
      process.stderr.write(
        `\n[hang-reporter] no test file has run for ${Math.round((now - this.lastEnd) / 1000)} s and the run has not ended\n${workers()}`,
      )
    }
    const stalled = [...this.running.values()].filter((r) => now - r.news >= STALL_MS)
    if (stalled.length === 0) return
    const lines = stalled.map(
      (r) =>
        `  ${r.file}: no news for ${Math.round((now - r.news) / 1000)} s (started ${Math.round((now - r.since) / 1000)} s ago), ${r.where}`,
    )
    process.stderr.write(
      `\n[hang-reporter] test files making no progress:\n${lines.join('\n')}\n${workers()}`,
    )
    const given = stalled.filter((r) => now - r.news >= GIVE_UP_MS)
    if (given.length > 0) {
      process.stderr.write(
        `[hang-reporter] stopping the run: ${given.map((r) => r.file).join(', ')} made no progress for ${Math.round(GIVE_UP_MS / 1000)} s\n`,
      )
      exitWithoutDescendants(1)
    }
  }
}

/**
 * Exits after killing every process below this one: a worker stuck in a loop outlives its parent's
 * exit (it was seen spinning for 38 minutes after a run was stopped), and so would the servers its
 * tests started.
 */
function exitWithoutDescendants(code: number): never {
  try {
    const table = execFileSync('ps', ['-e', '-o', 'pid=,ppid='], { encoding: 'utf8', timeout: 5_000 })
    const children = new Map<number, number[]>()
    for (const line of table.split('\n')) {
      const [pid, ppid] = line.trim().split(/\s+/).map(Number)
      if (!pid || ppid === undefined) continue
      children.set(ppid, [...(children.get(ppid) ?? []), pid])
    }
    const below: number[] = []
    const next = [process.pid]
    while (next.length > 0) {
      for (const child of children.get(next.pop() as number) ?? []) {
        below.push(child)
        next.push(child)
      }
    }
    for (const pid of below) {
      try {
        process.kill(pid, 'SIGKILL')
      } catch {
        // already gone
      }
    }
  } catch {
    // without ps, exit all the same
  }
  process.exit(code)
}

/** The worker processes and their state (R: computing, S: waiting), for telling a busy loop from a wait. */
function workers(): string {
  try {
    const out = execFileSync('ps', ['-o', 'pid,stat,etime,time,rss,args', '--ppid', String(process.pid)], {
      encoding: 'utf8',
      timeout: 5_000,
    })
    return `${out
      .split('\n')
      .map((line) => `  ${line.slice(0, 160)}`)
      .join('\n')}\n`
  } catch {
    return ''
  }
}
