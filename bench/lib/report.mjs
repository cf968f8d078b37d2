// The table printed at the end of a run.

/** Prints the scenarios, the CLI cold starts, the machine and any failure, as plain text. */
export function printReport(report) {
  const out = (line = '') => process.stdout.write(`${line}\n`)
  const m = report.machine
  out()
  out(`rwa benchmark — ${report.date}`)
  out(
    `machine: ${m.cores} cores (${m.cpu_model}), Node ${m.node}, ${m.platform}; ` +
      (m.pinning
        ? `servers on core ${m.pinning.server}, load generator on core ${m.pinning.load}`
        : 'no pinning'),
  )
  out(
    `load average at start ${report.load_average.start.join(' ')}, at end ${report.load_average.end.join(' ')}`,
  )
  const p = report.plan
  out(
    `autocannon: ${p.connections} connections, ${p.warmup} s warm-up (not counted), median of ${p.rounds} round(s) of ${p.duration} s`,
  )
  if (report.seeding) {
    const s = report.seeding
    out(
      `seeded through the API: ${s.org_count} enterprise organizations (${s.per_minute_limit}/min each), ${s.api_calls} calls in ${s.seconds} s`,
    )
    if (s.transfers_after)
      out(
        `transfers at the end: ${s.transfers_after.total} (${s.transfers_after.approved} approved, ${s.transfers_after.rejected} rejected)`,
      )
  }
  if (report.postgres?.seeding) {
    const s = report.postgres.seeding
    out(
      `PostgreSQL + Redis (${report.postgres.redis}): a new database, seeded through instance A with ${s.org_count} organizations (${s.api_calls} calls in ${s.seconds} s)`,
    )
    if (s.transfers_after)
      out(
        `transfers there at the end: ${s.transfers_after.total} (${s.transfers_after.approved} approved, ${s.transfers_after.rejected} rejected)`,
      )
  } else if (report.postgres?.skipped) out(`PostgreSQL + Redis scenarios skipped: ${report.postgres.skipped}`)
  out()
  const rows = [
    [
      'scenario',
      'req/s',
      'p50 ms',
      'p99 ms',
      'non-2xx',
      'srv cpu',
      'µs/req',
      'ratio',
      'target',
      'met',
      'cpu ratio',
    ],
  ]
  for (const s of report.scenarios) {
    if (s.skipped) continue
    const met = [s.target_met].filter((v) => v !== undefined)
    rows.push([
      s.title,
      String(s.rps),
      s.p50_ms.toFixed(2),
      s.p99_ms.toFixed(2),
      String(s.non2xx + s.errors),
      s.server_cpu.toFixed(2),
      String(s.server_cpu_us_per_request),
      s.ratio === undefined ? '' : `${s.ratio.toFixed(2)} vs ${s.baseline}`,
      s.target === undefined ? '' : `≥ ${s.target}`,
      met.length === 0 ? '' : met.every(Boolean) ? 'yes' : 'NO',
      s.cpu_ratio === undefined ? '' : s.cpu_ratio.toFixed(2),
    ])
  }
  table(rows, out)
  for (const s of report.scenarios.filter((s) => s.skipped)) out(`${s.title}: skipped, ${s.skipped}`)
  if (report.flood) {
    out()
    const rows = [
      [
        'flood: authenticated read under 100 connections',
        'p99 quiet ms',
        'p99 flooded ms',
        'ratio',
        'goal',
        'met',
        'flood req/s',
        'flood answers',
        'srv µs/flood req',
      ],
    ]
    for (const v of report.flood.variants) {
      if (v.skipped) rows.push([v.title, `skipped: ${v.skipped}`])
      else
        rows.push([
          v.title,
          v.quiet_p99_ms.toFixed(2),
          v.flooded_p99_ms.toFixed(2),
          v.ratio.toFixed(2),
          `≤ ${report.flood.goal}`,
          v.goal_met ? 'yes' : 'NO',
          String(v.flood_rps),
          Object.entries(v.flood_status_codes)
            .map(([code, n]) => `${code}: ${n}`)
            .join(', '),
          String(v.server_us_per_flood_request),
        ])
    }
    table(rows, out)
  }
  if (report.log) {
    out()
    const l = report.log
    out(
      `verifiable log (${l.rounds} round(s): ${l.transfers_per_round} transfer POSTs, ${l.proofs_per_size_and_round} inclusion proofs per size; CPU, medians)`,
    )
    const rows = [['figure', 'value', 'ratio', 'goal', 'met']]
    for (const r of l.rows) {
      rows.push([
        r.title,
        `${r.value} ${r.unit}`,
        r.ratio === undefined ? '' : `${r.ratio.toFixed(2)} vs ${r.baseline}`,
        r.goal === undefined ? '' : `≤ ${r.goal}`,
        r.goal_met === undefined ? '' : r.goal_met ? 'yes' : 'NO',
      ])
    }
    table(rows, out)
  }
  if (report.outbox) {
    out()
    const o = report.outbox
    out(`events outbox (${o.rounds} round(s) of ${o.transfers_per_round} transfer POSTs; CPU, medians)`)
    const rows = [['figure', 'value', 'ratio', 'goal', 'met']]
    for (const r of o.rows) {
      rows.push([
        r.title,
        `${r.value} ${r.unit}`,
        r.ratio === undefined ? '' : `${r.ratio.toFixed(2)} vs ${r.baseline}`,
        r.goal === undefined ? '' : `≤ ${r.goal}`,
        r.goal_met === undefined ? '' : r.goal_met ? 'yes' : 'NO',
      ])
    }
    table(rows, out)
  }
  if (report.cli) {
    out()
    const c = report.cli
    const cli = [['CLI cold start', 'median ms', 'ratio to node -e 0', 'target', 'met']]
    for (const f of [c.node, c.help, c.pricing].filter(Boolean)) {
      if (f.error) cli.push([f.command, `failed: ${f.error.split('\n')[0]}`])
      else
        cli.push([
          f.command,
          f.median_ms.toFixed(1),
          f.ratio === undefined ? '' : f.ratio.toFixed(2),
          f.target ? `≤ ${f.target}` : '',
          f.target_met === undefined ? '' : f.target_met ? 'yes' : 'NO',
        ])
    }
    table(cli, out)
  }
  if (report.profiles?.length) {
    for (const prof of report.profiles) {
      out()
      out(
        `profile of ${prof.scenario} (measured rounds only): ${prof.busy_ms} ms busy, ${prof.idle_ms} ms idle`,
      )
      const list = (title, frames, count) => {
        out(`  ${title}:`)
        for (const f of frames.slice(0, count)) out(`    ${String(f.share).padStart(5)} %  ${f.name}`)
      }
      list('self time by package', prof.self_by_package, 10)
      list('self time by function', prof.self_by_function, 15)
      list(
        'inclusive time of our own functions',
        prof.inclusive_by_function.filter((f) => f.name.includes(' dist/')),
        15,
      )
    }
  }
  out()
  out('srv cpu: share of one core the server used (near 1.00: the server was the bottleneck; well under:')
  out('the load generator or the machine was). µs/req: server CPU time per request. ratio: req/s over the')
  out("baseline's, median of the rounds (the targets' measure). cpu ratio: baseline µs/req over the")
  out("scenario's: the same comparison, insensitive to a baseline held back by the load generator.")
  out('PostgreSQL+Redis rows compare with the same request over SQLite; srv cpu and µs/req count the rwa')
  out("process(es) only, not PostgreSQL's or Redis's own CPU.")
  if (report.failures.length) {
    out()
    out('FAILURES:')
    for (const f of report.failures) out(`  - ${f}`)
  }
}

function table(rows, out) {
  const widths = []
  for (const row of rows) {
    for (const [i, cell] of row.entries()) widths[i] = Math.max(widths[i] ?? 0, cell.length)
  }
  for (const [i, row] of rows.entries()) {
    out(row.map((cell, j) => (j === 0 ? cell.padEnd(widths[j]) : cell.padStart(widths[j]))).join('  '))
    if (i === 0) out(widths.map((w) => '-'.repeat(w)).join('  '))
  }
}
