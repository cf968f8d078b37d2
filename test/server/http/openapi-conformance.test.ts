import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PRICING } from '../../../src/contract/pricing.js'
import { createHarness, type Harness } from '../../support/harness.js'
import { OpenApiConformance } from '../../support/openapi-conformance.js'

/*
 * The check the harness applies to every response of the HTTP suite: here fed responses that break the
 * document one way each, so a passing suite means something.
 */

let h: Harness
let conformance: OpenApiConformance
beforeAll(async () => {
  h = await createHarness()
  conformance = new OpenApiConformance((await h.get('/openapi.json', { key: null })).body)
})
afterAll(() => h.close())

const requestId = { 'X-Request-Id': '6f1c2b9e-3d4a-4c57-9a1e-2b8f0c7d5e31' }
const json = (extra: Record<string, string> = {}) =>
  new Headers({ 'content-type': 'application/json', ...requestId, ...extra })
const rateLimits = { 'RateLimit-Limit': '5000', 'RateLimit-Remaining': '4999', 'RateLimit-Reset': '60' }
const problemsOf = (verdict: ReturnType<OpenApiConformance['check']>) =>
  verdict.kind === 'checked' ? verdict.problems : ['skipped']

describe('OpenApiConformance', () => {
  it('accepts a response the document describes', () => {
    const verdict = conformance.check({
      method: 'GET',
      path: '/console/billing/pricing',
      status: 200,
      headers: json(),
      text: JSON.stringify(PRICING),
    })
    expect(verdict).toEqual({
      kind: 'checked',
      operation: 'GET /console/billing/pricing → 200',
      problems: [],
    })
  })

  it('reports a status the operation does not declare', () => {
    const verdict = conformance.check({
      method: 'GET',
      path: '/console/billing/pricing',
      status: 404,
      headers: new Headers({ 'content-type': 'application/problem+json' }),
      text: '{}',
    })
    expect(problemsOf(verdict)).toEqual(['status 404 is not declared'])
  })

  it('reports a body that does not match the schema', () => {
    const { free_trial_days: _, ...withoutTrialDays } = PRICING
    const verdict = conformance.check({
      method: 'GET',
      path: '/console/billing/pricing',
      status: 200,
      headers: json(),
      text: JSON.stringify({ ...withoutTrialDays, tiers: { ...PRICING.tiers, pro: { name: 'Pro' } } }),
    })
    expect(problemsOf(verdict).join()).toMatch(/must have required property 'free_trial_days'/)
    expect(problemsOf(verdict).join()).toMatch(/tiers\/pro must have required property 'price'/)
  })

  it('reports a missing required header and an undeclared content type', () => {
    const stats = { total_keys: 1, active_keys: 1, by_tier: { free: 0, pro: 0, enterprise: 1 } }
    const ok = conformance.check({
      method: 'GET',
      path: '/console/billing/stats',
      status: 200,
      headers: json(rateLimits),
      text: JSON.stringify(stats),
    })
    expect(problemsOf(ok)).toEqual([])
    const noHeaders = conformance.check({
      method: 'GET',
      path: '/console/billing/stats',
      status: 200,
      headers: json(),
      text: JSON.stringify(stats),
    })
    expect(problemsOf(noHeaders)).toEqual([
      'required header RateLimit-Limit is missing',
      'required header RateLimit-Remaining is missing',
      'required header RateLimit-Reset is missing',
    ])
    const noRequestId = conformance.check({
      method: 'GET',
      path: '/console/billing/stats',
      status: 200,
      headers: new Headers({ 'content-type': 'application/json', ...rateLimits }),
      text: JSON.stringify(stats),
    })
    expect(problemsOf(noRequestId)).toEqual(['required header X-Request-Id is missing'])
    const text = conformance.check({
      method: 'GET',
      path: '/console/billing/stats',
      status: 200,
      headers: new Headers({ 'content-type': 'text/plain', ...requestId, ...rateLimits }),
      text: 'ok',
    })
    expect(problemsOf(text)).toEqual(['content type text/plain is not one of application/json'])
  })

  it('matches a literal path segment before a parameter, and skips what the document does not describe', () => {
    expect(conformance.templateOf('/console/rwa/jurisdictions/trust')).toBe(
      '/console/rwa/jurisdictions/trust',
    )
    expect(conformance.templateOf('/console/rwa/jurisdictions/US')).toBe('/console/rwa/jurisdictions/{id}')
    expect(
      conformance.check({ method: 'GET', path: '/docs', status: 200, headers: new Headers(), text: '' }),
    ).toEqual({ kind: 'skipped' })
    expect(
      conformance.check({
        method: 'PATCH',
        path: '/console/billing/keys',
        status: 404,
        headers: new Headers(),
        text: '',
      }),
    ).toEqual({ kind: 'skipped' })
  })
})
