import { join, resolve } from 'node:path'
import type { Command } from 'commander'
import ts from 'typescript'
import { beforeAll, describe, expect, it } from 'vitest'
import { buildProgram } from '../../src/cli/main.js'
import { ROUTES } from '../../src/contract/routes.js'

/*
 * Every operation of the route table has its CLI command, read from the CLI's own code rather than
 * from a second list: the TypeScript compiler reads each `.action(...)` of src/cli/program/ (the
 * command it is declared on, from its `.command('name')` chain), follows every function it calls into
 * src/cli/ and src/client/, and collects the operations named on the way (`rwa.governance.getTransfer`,
 * `routes.streamEvents`). An operation added to the table without a command fails here, named.
 */

const ROOT = resolve(import.meta.dirname, '../..')
const OPERATION_IDS = new Set(Object.keys(ROUTES))

/** Operations that are no person's to call: load balancers, a metrics scraper and the payment provider call them. */
const NOT_FOR_THE_CLI: Record<string, string> = {
  getHealth: 'the liveness probe, for load balancers and orchestrators',
  getReadiness: 'the readiness probe, for load balancers and orchestrators',
  getMetrics: 'the Prometheus scrape of the admin key (docs/operations.md)',
  receiveStripeEvent: "Stripe's signed webhook, called by Stripe",
}

/** The operations each command reaches: `jurisdictions get` -> {getJurisdiction}. */
let commands: Map<string, Set<string>>

beforeAll(() => {
  const config = ts.readConfigFile(join(ROOT, 'tsconfig.json'), ts.sys.readFile)
  const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT)
  const program = ts.createProgram([join(ROOT, 'src/cli/main.ts')], { ...options, noEmit: true })
  commands = commandsAndOperations(program)
}, 120_000)

/** Whether a declaration lives where the CLI's own code does (the commands, their helpers, the client). */
const followed = (node: ts.Node): boolean => {
  const file = node.getSourceFile().fileName
  return file.startsWith(join(ROOT, 'src/cli/')) || file.startsWith(join(ROOT, 'src/client/'))
}

function commandsAndOperations(program: ts.Program): Map<string, Set<string>> {
  const checker = program.getTypeChecker()
  const memo = new Map<ts.Node, Set<string>>()

  /** The function (or what makes one) a name stands for, when it is one of the CLI's own. */
  const functionOf = (name: ts.Node): ts.Node | undefined => {
    let symbol = checker.getSymbolAtLocation(name)
    if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol)
    // `const { readEventStream } = await import(...)`: the property of what is destructured.
    const binding = symbol?.declarations?.[0]
    if (binding && ts.isBindingElement(binding) && ts.isVariableDeclaration(binding.parent.parent)) {
      const from = binding.parent.parent.initializer
      const key = binding.propertyName ?? binding.name
      if (from && ts.isIdentifier(key))
        symbol = checker.getPropertyOfType(checker.getTypeAtLocation(from), key.text) ?? symbol
    }
    for (const declaration of symbol?.declarations ?? []) {
      if (!followed(declaration)) continue
      if (ts.isFunctionDeclaration(declaration) || ts.isMethodDeclaration(declaration)) return declaration
      // `const list = (...) => ...`, and `const freeze = freezeCommand(true)`: what makes it is followed.
      if (ts.isVariableDeclaration(declaration) && declaration.initializer) return declaration.initializer
    }
    return undefined
  }

  /** The operations `node` names, itself or through the functions it calls (each followed once). */
  const operationsOf = (node: ts.Node): Set<string> => {
    const known = memo.get(node)
    if (known) return known
    const found = new Set<string>()
    memo.set(node, found)
    const visit = (child: ts.Node): void => {
      if (ts.isPropertyAccessExpression(child) && OPERATION_IDS.has(child.name.text))
        found.add(child.name.text)
      if (
        ts.isPropertyAccessExpression(child) ||
        (ts.isIdentifier(child) && !ts.isPropertyAccessExpression(child.parent))
      ) {
        const target = functionOf(ts.isPropertyAccessExpression(child) ? child.name : child)
        if (target && target !== node) for (const id of operationsOf(target)) found.add(id)
      }
      ts.forEachChild(child, visit)
    }
    ts.forEachChild(node, visit)
    return found
  }

  /** `['webhooks', 'get']` of the command an expression declares: its `.command('name')` chain. */
  const commandPathOf = (expression: ts.Expression): string[] => {
    if (ts.isParenthesizedExpression(expression)) return commandPathOf(expression.expression)
    if (ts.isCallExpression(expression)) {
      const callee = expression.expression
      if (ts.isPropertyAccessExpression(callee)) {
        const [first] = expression.arguments
        const parent = commandPathOf(callee.expression)
        return callee.name.text === 'command' && first && ts.isStringLiteralLike(first)
          ? [...parent, first.text.split(' ')[0]!]
          : parent
      }
      // A helper that adds to a command and returns it: examples(cmd, ...), flags(cmd, table).
      const [first] = expression.arguments
      return first ? commandPathOf(first) : []
    }
    if (ts.isIdentifier(expression)) {
      const declaration = checker.getSymbolAtLocation(expression)?.declarations?.[0]
      if (declaration && ts.isVariableDeclaration(declaration) && declaration.initializer)
        return commandPathOf(declaration.initializer)
      // A helper's parameter (importCommand(group, ...)): a command of several groups.
      if (declaration && ts.isParameter(declaration) && expression.text !== 'program') return ['*']
    }
    return []
  }

  const found = new Map<string, Set<string>>()
  for (const file of program.getSourceFiles()) {
    if (!file.fileName.startsWith(join(ROOT, 'src/cli/program/'))) continue
    const visit = (node: ts.Node): void => {
      if (
        ts.isCallExpression(node) &&
        ts.isPropertyAccessExpression(node.expression) &&
        node.expression.name.text === 'action' &&
        node.arguments[0]
      ) {
        const path = commandPathOf(node.expression.expression).join(' ')
        const operations = found.get(path) ?? new Set<string>()
        for (const id of operationsOf(node.arguments[0])) operations.add(id)
        found.set(path, operations)
      }
      ts.forEachChild(node, visit)
    }
    visit(file)
  }
  return found
}

/** Every command `rwa` declares, as a path (`webhooks get`), from the program itself. */
function declaredCommands(command: Command, prefix: string[] = []): string[] {
  return command.commands.flatMap((sub) => {
    const path = [...prefix, sub.name()]
    return sub.commands.length > 0 ? declaredCommands(sub, path) : [path.join(' ')]
  })
}

describe('a CLI command for every operation of the route table', () => {
  it('reads the commands right: each is one rwa declares, and a few known ones reach their operation', () => {
    const declared = new Set(declaredCommands(buildProgram()))
    const isDeclared = (path: string) =>
      path.startsWith('* ') ? [...declared].some((d) => d.endsWith(path.slice(1))) : declared.has(path)
    expect([...commands.keys()].filter((path) => !isDeclared(path))).toEqual([])
    expect(commands.get('transfers get')).toEqual(new Set(['getTransfer']))
    expect(commands.get('jurisdictions list')).toEqual(new Set(['listJurisdictions']))
    expect(commands.get('apply')).toContain('batch')
    // The lazy import of a command's module is followed; nothing reaches everything.
    for (const [path, operations] of commands)
      expect(operations.size, path).toBeLessThan(OPERATION_IDS.size / 2)
  })

  it('has a command for each operation but the probes, metrics and the payment webhook', () => {
    const covered = new Set([...commands.values()].flatMap((operations) => [...operations]))
    const lacking = [...OPERATION_IDS].filter((id) => !covered.has(id) && !(id in NOT_FOR_THE_CLI))
    expect(lacking, `operations without a CLI command: ${lacking.join(', ')}`).toEqual([])
    // An exemption that gained a command is no longer one.
    for (const id of Object.keys(NOT_FOR_THE_CLI)) {
      expect(OPERATION_IDS, id).toContain(id)
      expect(covered, id).not.toContain(id)
    }
  })

  it('names the command of each operation (rwa attestations revoke, rwa log inclusion, rwa webhooks get)', () => {
    const commandsOf = (id: string) => [...commands].filter(([, ops]) => ops.has(id)).map(([path]) => path)
    expect(commandsOf('revokeAttestation')).toContain('attestations revoke')
    expect(commandsOf('getLogInclusionProof')).toContain('log inclusion')
    expect(commandsOf('getWebhook')).toContain('webhooks get')
    expect(commandsOf('streamEvents')).toContain('listen')
  })
})
