import { describe, expect, it } from 'vitest'
import { DuplicateKeyError, parseStrictJson } from '../../src/text/strict-json.js'

const duplicateIn = (text: string): DuplicateKeyError => {
  try {
    parseStrictJson(text)
  } catch (error) {
    if (error instanceof DuplicateKeyError) return error
    throw error
  }
  throw new Error(`no duplicate key found in ${text}`)
}

describe('parseStrictJson', () => {
  it('reads what JSON.parse reads, the same', () => {
    for (const text of [
      '{}',
      '[]',
      '"a"',
      '12.5e3',
      'null',
      ' {"a": [1, {"a": 2}, "a", {"b": "}{,\\"a\\""}], "b": {"a": {"a": true}}} ',
      '[{"a":1},{"a":1}]',
      '{"a\\\\":1,"a":2}',
      '{"__proto__": {"x": 1}, "constructor": 2}',
    ])
      expect(parseStrictJson(text), text).toEqual(JSON.parse(text))
  })

  it('refuses a key twice in one object, naming it and where it is', () => {
    expect(duplicateIn('{"action":"x","action":"y"}')).toMatchObject({ key: 'action', path: 'action' })
    const entry = duplicateIn(
      '[{"action":"a"},{"target":{"id":"t"}},{"changes":{"after":{}},"at":"x","action":"b","action":"c"}]',
    )
    expect(entry).toMatchObject({ key: 'action', path: '[2].action' })
    expect(entry.message).toBe('the key "action" appears twice in one object (at [2].action)')
    expect(duplicateIn('{"log_key":{"kid":"k","vkey":"a","vkey":"b"}}').path).toBe('log_key.vkey')
    expect(duplicateIn('{"https://x/1":{"a b":1,"a b":2}}').path).toBe('["https://x/1"]["a b"]')
  })

  it('compares keys as JSON reads them: escapes decoded', () => {
    expect(duplicateIn('{"a":1,"\\u0061":2}').key).toBe('a')
    expect(duplicateIn('{"\\"q":1,"\\u0022q":2}').key).toBe('"q')
    // A quote escaped inside a key, or a value that looks like a key, is no key of its own.
    expect(parseStrictJson('{"a\\"":1,"a":"\\"a\\":"}')).toEqual({ 'a"': 1, a: '"a":' })
  })

  it('text that is not JSON is the SyntaxError JSON.parse throws', () => {
    expect(() => parseStrictJson('{"a":1,}')).toThrow(SyntaxError)
    expect(() => parseStrictJson('{"a":1,}')).not.toThrow(DuplicateKeyError)
  })
})
