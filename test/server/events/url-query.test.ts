import { describe, expect, it } from 'vitest'
import {
  hidePathBeyondFirst,
  hideQueryValues,
  hideUrlSecrets,
} from '../../../server/areas/webhooks/url-query.js'

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

describe('hidePathBeyondFirst and hideUrlSecrets', () => {
  it.each([
    // Slack, Discord, Zapier: the secret is in the path.
    ['https://hooks.slack.com/services/T000/B000/XXXXsecret', 'https://hooks.slack.com/services/***'],
    ['https://discord.com/api/webhooks/123/tok3n', 'https://discord.com/api/***'],
    ['https://hooks.zapier.com/hooks/catch/123/abc/', 'https://hooks.zapier.com/hooks/***'],
    // One segment (a trailing slash included) is kept; so is a bare host.
    ['https://hooks.example.com/rwa', 'https://hooks.example.com/rwa'],
    ['https://hooks.example.com/rwa/', 'https://hooks.example.com/rwa/'],
    ['https://hooks.example.com/', 'https://hooks.example.com/'],
    ['https://hooks.example.com', 'https://hooks.example.com'],
    ['https://hooks.example.com:8443/a/b', 'https://hooks.example.com:8443/a/***'],
    ['https://[2606:4700::1]/a/b/c', 'https://[2606:4700::1]/a/***'],
    // The query and fragment follow the path, which ends at either.
    ['https://h.example/a/b?token=abc', 'https://h.example/a/***?token=***'],
    ['https://h.example/a/b#frag/x', 'https://h.example/a/***#frag/x'],
    ['https://h.example/a?x=/y/z', 'https://h.example/a?x=***'],
    ['https://h.example?x=1', 'https://h.example?x=***'],
  ])('%s reads %s', (url, hidden) => {
    expect(hideUrlSecrets(url)).toBe(hidden)
  })

  it('hidePathBeyondFirst leaves the query as it is', () => {
    expect(hidePathBeyondFirst('https://h.example/a/b?token=abc')).toBe('https://h.example/a/***?token=abc')
  })
})
