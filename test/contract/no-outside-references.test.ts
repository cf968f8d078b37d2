import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, normalize, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

/*
 * The code and the docs cite only what the repository holds: whoever carries the project on has the
 * repository and nothing else. A decision the code relies on is written in docs/ (or README.md) and
 * cited there as `docs/<page>.md, "<heading>"`; this test fails, naming file:line, for a citation of a
 * document outside the repository, and for a citation or a Markdown link whose page or heading is
 * missing.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const SELF = relative(ROOT, fileURLToPath(import.meta.url))

/** The tracked text files: git's list, without generated or vendored folders and binary files. */
function trackedTextFiles(): Map<string, string> {
  const listed = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' }).split('\0')
  const files = new Map<string, string>()
  for (const file of listed) {
    if (file === '' || /(^|\/)(node_modules|dist)\//.test(file) || !existsSync(join(ROOT, file))) continue
    const text = readFileSync(join(ROOT, file), 'utf8')
    if (!text.includes('\0')) files.set(file, text)
  }
  return files
}

/** Each match of `pattern` in `text` as the 1-based line it starts on, with what it matched. */
function matchesOf(text: string, pattern: RegExp): { line: number; match: RegExpExecArray }[] {
  const found = []
  for (const match of text.matchAll(new RegExp(pattern.source, `${pattern.flags.replace('g', '')}g`))) {
    found.push({ line: text.slice(0, match.index).split('\n').length, match })
  }
  return found
}

/** What cites a document the repository does not hold. */
const OUTSIDE: { what: string; pattern: RegExp }[] = [
  // The design notes the project was started from, however the citation is spelled or wrapped
  // ("DESIGN §14", "DESIGN.md", "(DESIGN\n * §14)").
  { what: 'the design notes outside the repository', pattern: /\bDESIGN\b/ },
  {
    what: 'the seed specification outside the repository',
    pattern: /seed\/000|\bspec(?:ification)?(?:'s)? §/,
  },
  // A folder beside the repository (a module import of a folder of its own named so is not one).
  {
    what: 'a folder outside the repository',
    pattern: /\.\.\/shared\b(?!\/[\w./-]+\.[cm]?[jt]s['"])|\/work\/(?:shared|notes)\b/,
  },
  // A section sign names a section of some document; of the documents outside the repository only
  // RFCs are cited by section ("RFC 9162 §2.1.3", "§2.1.1-§2.1.4.1").
  { what: 'a section of a document outside the repository', pattern: /§/ },
]

/** An RFC's section, which the last pattern above allows. */
const RFC_SECTION = /RFC \d+ §[\d.]*\d(?:[-–]§?[\d.]*\d)*/g

/** The headings of a Markdown page, outside code fences, as written and as GitHub anchors them. */
function headingsOf(text: string): { titles: string[]; anchors: Set<string> } {
  const titles: string[] = []
  const anchors = new Set<string>()
  const seen = new Map<string, number>()
  let fenced = false
  for (const line of text.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced
    const heading = fenced ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)
    const title = heading?.[1]
    if (title === undefined) continue
    titles.push(title)
    const slug = title
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-')
    const count = seen.get(slug) ?? 0
    seen.set(slug, count + 1)
    anchors.add(count === 0 ? slug : `${slug}-${count}`)
  }
  return { titles, anchors }
}

/** A citation of a section: `docs/<page>.md, "<heading>"`, perhaps wrapped onto a comment's next line. */
const CITATION = /\b((?:docs\/)?[\w-]+\.md),\s+(?:(?:\*|\/\/)\s+)?"([^"]{1,200}?)"/

/** The page a citation or link in `from` names: docs/… and README.md from the root, else beside `from`. */
function pageOf(from: string, path: string): string {
  return /^(docs\/|README\.md$)/.test(path) ? path : normalize(join(dirname(from), path))
}

describe('references to documents', () => {
  const files = trackedTextFiles()

  it('reads the whole repository', () => {
    const names = [...files.keys()]
    for (const folder of ['server/', 'src/', 'test/', 'bench/', 'docs/', 'bin/', '.ci/']) {
      expect(names.filter((name) => name.startsWith(folder)).length, folder).toBeGreaterThan(0)
    }
    expect(names).toContain('README.md')
    expect(files.size).toBeGreaterThan(300)
  })

  it('cite no document outside the repository', () => {
    const found: string[] = []
    for (const [file, text] of files) {
      if (file === SELF) continue
      const lines = text.split('\n')
      const byLine = new Map<number, string[]>()
      for (const { what, pattern } of OUTSIDE) {
        const searched =
          pattern.source === '§' ? text.replace(RFC_SECTION, (rfc) => ' '.repeat(rfc.length)) : text
        for (const { line } of matchesOf(searched, pattern)) {
          const whats = byLine.get(line) ?? []
          if (!whats.includes(what)) whats.push(what)
          byLine.set(line, whats)
        }
      }
      for (const [line, whats] of [...byLine].sort(([a], [b]) => a - b)) {
        found.push(`${file}:${line}: cites ${whats.join('; ')}: ${lines[line - 1]?.trim()}`)
      }
    }
    expect(found, found.join('\n')).toEqual([])
  })

  it('cite the pages and headings the repository has', () => {
    const pages = new Map<string, ReturnType<typeof headingsOf>>()
    const page = (path: string) => {
      if (!pages.has(path)) pages.set(path, headingsOf(files.get(path) ?? ''))
      return pages.get(path)!
    }
    const broken: string[] = []
    let checked = 0
    for (const [file, text] of files) {
      if (file === SELF) continue
      // `docs/webhooks.md, "Deliveries"`: a heading of that page, or the start of one; a comment may wrap
      // it onto its next line.
      for (const { line, match } of matchesOf(text, CITATION)) {
        const path = pageOf(file, match[1]!)
        const heading = match[2]!.replace(/\s*\n\s*(?:\*|\/\/|#)?\s*/g, ' ')
        if (/^<[^>]*>$/.test(heading)) continue // the form itself: `docs/<page>.md, "<heading>"`
        checked++
        if (!files.has(path)) broken.push(`${file}:${line}: ${match[0]}: no page ${path}`)
        else if (!page(path).titles.some((title) => title.startsWith(heading)))
          broken.push(`${file}:${line}: ${match[0]}: ${path} has no heading "${heading}"`)
      }
      if (!file.endsWith('.md')) continue
      // [text](page.md#anchor) and [text](#anchor) in the docs.
      for (const { line, match } of matchesOf(text, /\]\(([^)\s#]*\.md|)(?:#([^)\s]+))?\)/)) {
        if ((match[1] === '' && match[2] === undefined) || match[1]!.includes(':')) continue
        const path = match[1] === '' ? file : pageOf(file, match[1]!)
        checked++
        if (!files.has(path)) broken.push(`${file}:${line}: ${match[0]}: no page ${path}`)
        else if (match[2] !== undefined && !page(path).anchors.has(match[2]))
          broken.push(`${file}:${line}: ${match[0]}: ${path} has no heading #${match[2]}`)
      }
    }
    expect(broken, broken.join('\n')).toEqual([])
    expect(checked).toBeGreaterThan(200)
  })
})
