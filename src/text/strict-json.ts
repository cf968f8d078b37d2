/*
 * JSON as a verifier must read it: a key twice in one object is refused. `JSON.parse` keeps the last
 * of them, other readers (and people) the first, so the same file would say two things: an audit
 * entry's `action`, a proof's `amount`. Shared by the CLI (bundles, trust files, proofs, records) and
 * src/proof (the payloads of signed JWTs); free of both.
 */

/** A key that appears twice in one object, and where (`[3].action`, `log_key.vkey`). */
export class DuplicateKeyError extends SyntaxError {
  constructor(
    readonly key: string,
    readonly path: string,
  ) {
    super(`the key ${JSON.stringify(key)} appears twice in one object (at ${path})`)
  }
}

/**
 * `JSON.parse(text)`, refusing a key twice in one object (`DuplicateKeyError`, naming it); text that
 * is not JSON throws `JSON.parse`'s SyntaxError.
 */
export function parseStrictJson(text: string): unknown {
  const value: unknown = JSON.parse(text)
  const duplicate = firstDuplicateKey(text)
  if (duplicate) throw new DuplicateKeyError(duplicate.key, duplicate.path)
  return value
}

/** Where the reader is inside one array or object: an object's keys so far and the current one. */
interface Frame {
  keys?: Set<string>
  key?: string
  index: number
  expectKey: boolean
}

const QUOTE = 0x22
const BACKSLASH = 0x5c

/**
 * The first key found twice in one object of `text`, which JSON.parse has accepted: so only the
 * structure is followed here (brackets, commas, strings), never validated again.
 */
function firstDuplicateKey(text: string): { key: string; path: string } | undefined {
  const stack: Frame[] = []
  for (let i = 0; i < text.length; i++) {
    switch (text.charCodeAt(i)) {
      case 0x7b /* { */:
        stack.push({ keys: new Set(), index: 0, expectKey: true })
        break
      case 0x5b /* [ */:
        stack.push({ index: 0, expectKey: false })
        break
      case 0x7d /* } */:
      case 0x5d /* ] */:
        stack.pop()
        break
      case 0x2c /* , */:
        {
          const top = stack[stack.length - 1]!
          if (top.keys) top.expectKey = true
          else top.index++
          break
        }
      case QUOTE: {
        const end = closingQuote(text, i)
        const top = stack[stack.length - 1]
        if (top?.keys && top.expectKey) {
          const raw = text.slice(i, end + 1)
          // Escapes decoded: "a" and "\u0061" are one key.
          const key = raw.includes('\\') ? (JSON.parse(raw) as string) : raw.slice(1, -1)
          if (top.keys.has(key)) return { key, path: pathOf(stack, key) }
          top.keys.add(key)
          top.key = key
          top.expectKey = false
        }
        i = end
        break
      }
    }
  }
  return undefined
}

/** The index of the quote that closes the string opening at `start`. */
function closingQuote(text: string, start: number): number {
  let end = start
  for (;;) {
    end = text.indexOf('"', end + 1)
    let backslashes = 0
    while (text.charCodeAt(end - 1 - backslashes) === BACKSLASH) backslashes++
    if (backslashes % 2 === 0) return end
  }
}

/** `[3].action`, `log_key.vkey`, `lists["https://x/1"]`: the path to `key` in the innermost object. */
function pathOf(stack: Frame[], key: string): string {
  const segments = [...stack.slice(0, -1).map((frame) => (frame.keys ? frame.key! : frame.index)), key]
  return segments
    .map((segment, i) =>
      typeof segment === 'number'
        ? `[${segment}]`
        : /^[A-Za-z_$][\w$]*$/.test(segment)
          ? `${i === 0 ? '' : '.'}${segment}`
          : `[${JSON.stringify(segment)}]`,
    )
    .join('')
}
