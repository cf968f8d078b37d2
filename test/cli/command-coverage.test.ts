import type { Command } from 'commander'
import { describe, expect, it } from 'vitest'
import { flagsOf } from '../../src/cli/flags/flag.js'
import { buildProgram } from '../../src/cli/main.js'
import { argumentFieldsOf, coverageOf, operationOf } from '../../src/cli/program/operation-command.js'
import { cliSpecOf } from '../../src/cli/spec/generate.js'
import type { CliOperation } from '../../src/cli/spec/types.js'
import { ROUTES } from '../../src/contract/routes.js'

/*
 * Every operation of the route table has a CLI command whose flags (and arguments) cover its request:
 * read from the route table's own schemas (not from the generated src/cli/spec/operations.ts, which
 * test/cli/spec.test.ts keeps up to date) and from the program as it is declared. A command of an
 * operation (src/cli/program/operation-command.ts) covers a field with a flag or an argument; a workflow
 * command (`rwa apply`, `rwa audit export`) says how it gives each field of the operations it calls
 * (`covers`). An operation added without a command, or a field added without a flag, fails here, named.
 */

/** Operations that are no person's to call: load balancers, a metrics scraper and the payment provider call them. */
const NOT_FOR_THE_CLI: Record<string, string> = {
  getHealth: 'the liveness probe, for load balancers and orchestrators',
  getReadiness: 'the readiness probe, for load balancers and orchestrators',
  getMetrics: 'the Prometheus scrape of the admin key (docs/operations.md)',
  receiveStripeEvent: "Stripe's signed webhook, called by Stripe",
}

/** Every command of `program` with its path (`tokens rules set`). */
function commandsOf(program: Command): Array<{ path: string; command: Command }> {
  const all: Array<{ path: string; command: Command }> = []
  const walk = (command: Command, prefix: string[]) => {
    for (const sub of command.commands) {
      all.push({ path: [...prefix, sub.name()].join(' '), command: sub })
      walk(sub, [...prefix, sub.name()])
    }
  }
  walk(program, [])
  return all
}

/** The fields of `operation` that `command` gives no flag or argument for (one flag serves a name in two parts). */
function uncovered(command: Command, operation: CliOperation): string[] {
  const flags = flagsOf(command)
  const args = argumentFieldsOf(command)
  return operation.fields
    .filter((field) =>
      field.in === 'path'
        ? !args.includes(field.name) && !flags.some((f) => f.in === 'path' && f.field === field.name)
        : !flags.some((f) => f.in !== 'path' && f.field === field.name),
    )
    .map((field) => `${field.in} ${field.name}`)
}

/**
 * What the CLI lacks: each operation (but the exempt) without a command that covers its whole request,
 * with the fields each of its commands misses; and each field a workflow command's `covers` leaves out.
 */
function gaps(program: Command, spec: Record<string, CliOperation>): string[] {
  const commands = commandsOf(program)
  const found: string[] = []
  for (const [id, operation] of Object.entries(spec)) {
    if (id in NOT_FOR_THE_CLI) continue
    const misses: string[] = []
    let covered = false
    for (const { path, command } of commands) {
      const said = coverageOf(command)[id as keyof typeof ROUTES]
      if (said) {
        const left = operation.fields.map((f) => f.name).filter((name) => !(name in said))
        if (left.length === 0) covered = true
        else misses.push(`rwa ${path} says nothing of ${left.join(', ')}`)
      }
      if (operationOf(command) !== id) continue
      const left = uncovered(command, operation)
      if (left.length === 0) covered = true
      else misses.push(`rwa ${path} has no flag for ${left.join(', ')}`)
    }
    if (!covered) found.push(`${id}: ${misses.length > 0 ? misses.join('; ') : 'no command'}`)
  }
  return found
}

describe('a CLI command for every operation of the route table, with a flag for each field', () => {
  const program = buildProgram()
  const spec = cliSpecOf(ROUTES)

  it('has a command covering each operation but the probes, metrics and the payment webhook', () => {
    expect(gaps(program, spec)).toEqual([])
    // An exemption that gained a command is no longer one.
    for (const id of Object.keys(NOT_FOR_THE_CLI)) {
      expect(ROUTES, id).toHaveProperty(id)
      const claimed = commandsOf(program).filter(
        ({ command }) => operationOf(command) === id || id in coverageOf(command),
      )
      expect(claimed, id).toEqual([])
    }
  })

  it('fails, naming it, for an operation without a command and for a field without a flag', () => {
    const transfer = spec.requestTransfer!
    const grown = {
      ...spec,
      lockToken: { ...transfer, fields: [] },
      requestTransfer: {
        ...transfer,
        fields: [
          ...transfer.fields,
          { name: 'memo', in: 'body' as const, type: 'string' as const, required: false },
        ],
      },
      batch: {
        ...spec.batch!,
        fields: [
          ...spec.batch!.fields,
          { name: 'label', in: 'body' as const, type: 'string' as const, required: false },
        ],
      },
    }
    expect(gaps(program, grown)).toEqual([
      'requestTransfer: rwa transfers request has no flag for body memo',
      expect.stringMatching(/^batch: rwa (credentials|attestations|transfers) import says nothing of label;/),
      'lockToken: no command',
    ])
  })

  it('names the command of each operation (rwa attestations revoke, rwa log inclusion, rwa webhooks get, rwa listen)', () => {
    const commandsOfOperation = (id: string) =>
      commandsOf(program)
        .filter(({ command }) => operationOf(command) === id)
        .map(({ path }) => path)
    expect(commandsOfOperation('revokeAttestation')).toEqual(['attestations revoke'])
    expect(commandsOfOperation('getLogInclusionProof')).toEqual(['log inclusion'])
    expect(commandsOfOperation('getWebhook')).toEqual(['webhooks get'])
    expect(commandsOfOperation('streamEvents')).toEqual(['listen'])
    expect(commandsOfOperation('canTransfer')).toEqual(['transfers check'])
  })
})
