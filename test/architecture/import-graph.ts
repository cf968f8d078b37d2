import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'
import ts from 'typescript'

/*
 * The import graph of the repository's own modules, read with the TypeScript compiler's parser (no
 * type checking, so it takes a second): every `import`, `export ... from` and `import()` of a relative
 * specifier, resolved to the file it names. test/architecture/import-boundaries.test.ts checks the
 * rules of docs/architecture.md, "The layers", against it.
 */

/** How a module uses another: at run time, for its types only (erased), or lazily (`import()`). */
export type ImportKind = 'value' | 'type' | 'dynamic'

export interface Import {
  /** The importing file, relative to the repository's root with `/` separators. */
  from: string
  /** The imported file, so relative; a package's name as written (`kysely`, `node:fs`) otherwise. */
  to: string
  kind: ImportKind
  /** Whether `to` is a file of the repository (a relative specifier) rather than a package. */
  local: boolean
  line: number
}

const SOURCE = /\.(?:[cm]?ts|[cm]?js)$/

/** The source files under `folders` (relative to `root`), sorted, with `/` separators. */
export function sourceFiles(root: string, folders: readonly string[]): string[] {
  const found: string[] = []
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      if (name === 'node_modules' || name === 'dist') continue
      const path = join(dir, name)
      if (statSync(path).isDirectory()) walk(path)
      else if (SOURCE.test(name) || (dirname(path).endsWith(`${sep}bin`) && !name.includes('.'))) {
        found.push(relative(root, path).split(sep).join('/'))
      }
    }
  }
  for (const folder of folders) if (existsSync(join(root, folder))) walk(join(root, folder))
  return found.sort()
}

/** `./x.js` from `server/a/b.ts`: the repository's file it names (`server/a/x.ts`), as NodeNext resolves it. */
function resolveLocal(root: string, from: string, specifier: string): string {
  const target = resolve(root, dirname(from), specifier)
  const candidates = [
    target,
    target.replace(/\.js$/, '.ts'),
    target.replace(/\.mjs$/, '.mts'),
    `${target}.ts`,
  ]
  const hit = candidates.find((c) => existsSync(c) && statSync(c).isFile()) ?? target
  return relative(root, hit).split(sep).join('/')
}

/** A declaration's imports are types only when the whole clause is (`import type`) or each name is. */
function typeOnly(node: ts.ImportDeclaration | ts.ExportDeclaration): boolean {
  if (ts.isExportDeclaration(node)) {
    if (node.isTypeOnly) return true
    const clause = node.exportClause
    return clause !== undefined && ts.isNamedExports(clause) && clause.elements.length > 0
      ? clause.elements.every((e) => e.isTypeOnly)
      : false
  }
  const clause = node.importClause
  if (!clause) return false // `import './x.js'`: run for its effect
  if (clause.isTypeOnly) return true
  if (clause.name) return false
  const bindings = clause.namedBindings
  return bindings !== undefined && ts.isNamedImports(bindings) && bindings.elements.length > 0
    ? bindings.elements.every((e) => e.isTypeOnly)
    : false
}

/** The imports of one file's text. */
export function importsOf(root: string, file: string, text: string): Import[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS)
  const found: Import[] = []
  const add = (specifier: string, kind: ImportKind, at: ts.Node) => {
    const local = specifier.startsWith('.')
    found.push({
      from: file,
      to: local ? resolveLocal(root, file, specifier) : specifier,
      kind,
      local,
      line: source.getLineAndCharacterOfPosition(at.getStart(source)).line + 1,
    })
  }
  const visit = (node: ts.Node) => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      add(node.moduleSpecifier.text, typeOnly(node) ? 'type' : 'value', node)
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteralLike(node.arguments[0])
    ) {
      add(node.arguments[0].text, 'dynamic', node)
    } else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    ) {
      add(node.argument.literal.text, 'type', node) // `typeof import('./x.js')`
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

/** Every import of the files under `folders`. */
export function importGraph(root: string, folders: readonly string[]): Import[] {
  return sourceFiles(root, folders).flatMap((file) =>
    importsOf(root, file, readFileSync(join(root, file), 'utf8')),
  )
}

/** Files that import each other, directly or not: all of them, and one loop through them. */
export interface Circle {
  files: string[]
  /** From the first of `files` back to it. */
  loop: string[]
}

/**
 * The circles of a graph: its strongly connected components of more than one file (or a file that
 * imports itself), each with one loop through it, from its first file in sort order back to it.
 * Tarjan's algorithm, iterative so a long chain cannot overflow the stack.
 */
export function circlesOf(edges: ReadonlyArray<{ from: string; to: string }>): Circle[] {
  const next = new Map<string, Set<string>>()
  for (const { from, to } of edges) {
    if (!next.has(from)) next.set(from, new Set())
    if (!next.has(to)) next.set(to, new Set())
    next.get(from)?.add(to)
  }
  const order = new Map<string, number>()
  const low = new Map<string, number>()
  const onStack = new Set<string>()
  const stack: string[] = []
  const components: string[][] = []
  let counter = 0
  for (const start of [...next.keys()].sort()) {
    if (order.has(start)) continue
    const work: { node: string; children: string[] }[] = []
    const enter = (node: string) => {
      order.set(node, counter)
      low.set(node, counter)
      counter += 1
      stack.push(node)
      onStack.add(node)
      work.push({ node, children: [...(next.get(node) ?? [])].sort() })
    }
    enter(start)
    while (work.length > 0) {
      const top = work[work.length - 1] as { node: string; children: string[] }
      const child = top.children.shift()
      if (child !== undefined) {
        if (!order.has(child)) enter(child)
        else if (onStack.has(child))
          low.set(top.node, Math.min(low.get(top.node) ?? 0, order.get(child) ?? 0))
        continue
      }
      work.pop()
      const parent = work[work.length - 1]
      if (parent) low.set(parent.node, Math.min(low.get(parent.node) ?? 0, low.get(top.node) ?? 0))
      if (low.get(top.node) === order.get(top.node)) {
        const component: string[] = []
        let member: string | undefined
        do {
          member = stack.pop() as string
          onStack.delete(member)
          component.push(member)
        } while (member !== top.node)
        const selfLoop = next.get(top.node)?.has(top.node) ?? false
        if (component.length > 1 || selfLoop) components.push(component.sort())
      }
    }
  }
  return components
    .map((files) => ({ files, loop: loopThrough(files, next) }))
    .sort((a, b) => a.files.length - b.files.length)
}

/** One loop through a component's first file (a shortest one, found breadth-first inside it). */
function loopThrough(component: string[], next: Map<string, Set<string>>): string[] {
  const inside = new Set(component)
  const first = component[0] as string
  const cameFrom = new Map<string, string>()
  const queue = [first]
  while (queue.length > 0) {
    const node = queue.shift() as string
    for (const to of [...(next.get(node) ?? [])].sort()) {
      if (!inside.has(to)) continue
      if (to === first) {
        const loop = [node]
        for (let at = node; at !== first; ) {
          at = cameFrom.get(at) as string
          loop.unshift(at)
        }
        return [...loop, first]
      }
      if (!cameFrom.has(to)) {
        cameFrom.set(to, node)
        queue.push(to)
      }
    }
  }
  return [...component, first]
}
