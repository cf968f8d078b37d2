import { describe, expect, it } from 'vitest'
import { hideQueryValues } from '../../../server/areas/webhooks/url-query.js'

describe('hideQueryValues', () => {
  it.each([
    ['https://hooks.example.com/rwa', 'https://hooks.example.com/rwa'],
    ['https://hooks.example.com/rwa?token=abc', 'https://hooks.example.com/rwa?token=***'],
    ['https://h.example/?token=abc&v=2', 'https://h.example/?token=***&v=***'],
    // A bare parameter may itself be the secret.
    ['https://h.example/?s3cr3t', 'https://h.example/?***'],
    ['https://h.example/?a=&b', 'https://h.example/?a=***&***'],
    ['https://h.example/?a=1&&b=x=y', 'https://h.example/?a=***&&b=***'],
    ['https://h.example/?', 'https://h.example/?'],
    ['https://h.example/p?token=abc#part', 'https://h.example/p?token=***#part'],
    ['https://h.example/p#frag?not=query', 'https://h.example/p#frag?not=query'],
  ])('%s reads %s', (url, hidden) => {
    expect(hideQueryValues(url)).toBe(hidden)
  })
})
