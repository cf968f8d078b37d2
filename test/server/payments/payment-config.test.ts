import { describe, expect, it } from 'vitest'
import { loadServerConfig } from '../../../server/platform/config.js'
import { openDatabase } from '../../../server/platform/db/database.js'
import { paymentProviderFromConfig } from '../../../server/platform/payments/from-config.js'
import { LocalPaymentProvider } from '../../../server/platform/payments/local-provider.js'
import { StripePaymentProvider } from '../../../server/platform/payments/stripe-provider.js'
import {
  PRICE_ENTERPRISE,
  PRICE_PRO,
  STRIPE_SECRET_KEY,
  WEBHOOK_SECRET,
} from '../../support/stripe-fixtures.js'

const STRIPE_ENV = {
  RWA_PAYMENT_PROVIDER: 'stripe',
  RWA_STRIPE_SECRET_KEY: STRIPE_SECRET_KEY,
  RWA_STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
  RWA_STRIPE_PRICE_PRO: PRICE_PRO,
}

describe('payment provider configuration', () => {
  it('reads the RWA_STRIPE_* variables', () => {
    const config = loadServerConfig(
      {},
      {
        ...STRIPE_ENV,
        RWA_STRIPE_PRICE_ENTERPRISE: PRICE_ENTERPRISE,
        RWA_STRIPE_API_BASE: 'http://127.0.0.1:12111',
      },
    )
    expect(config).toMatchObject({
      paymentProvider: 'stripe',
      stripeSecretKey: STRIPE_SECRET_KEY,
      stripeWebhookSecret: WEBHOOK_SECRET,
      stripePricePro: PRICE_PRO,
      stripePriceEnterprise: PRICE_ENTERPRISE,
      stripeApiBase: 'http://127.0.0.1:12111',
    })
  })

  it.each(['RWA_STRIPE_SECRET_KEY', 'RWA_STRIPE_WEBHOOK_SECRET', 'RWA_STRIPE_PRICE_PRO'])(
    'refuses RWA_PAYMENT_PROVIDER=stripe without %s, naming it',
    (name) => {
      const env: Record<string, string> = { ...STRIPE_ENV }
      delete env[name]
      expect(() => loadServerConfig({}, env)).toThrow(
        new RegExp(`${name}: required when RWA_PAYMENT_PROVIDER=stripe`),
      )
    },
  )

  it('names every missing variable at once, and an unknown provider', () => {
    expect(() => loadServerConfig({}, { RWA_PAYMENT_PROVIDER: 'stripe' })).toThrow(
      /RWA_STRIPE_SECRET_KEY.*RWA_STRIPE_WEBHOOK_SECRET.*RWA_STRIPE_PRICE_PRO/,
    )
    expect(() => loadServerConfig({}, { RWA_PAYMENT_PROVIDER: 'paypal' })).toThrow(/RWA_PAYMENT_PROVIDER/)
  })

  it('refuses malformed values without echoing the secrets', () => {
    const badKey = 'pk_live_publishablekeynotsecret'
    const badSecret = 'notawebhooksecret'
    const run = () =>
      loadServerConfig(
        {},
        { ...STRIPE_ENV, RWA_STRIPE_SECRET_KEY: badKey, RWA_STRIPE_WEBHOOK_SECRET: badSecret },
      )
    expect(run).toThrow(/RWA_STRIPE_SECRET_KEY: expected a Stripe secret key/)
    expect(run).toThrow(/RWA_STRIPE_WEBHOOK_SECRET: expected the webhook signing secret/)
    try {
      run()
    } catch (error) {
      expect(String(error)).not.toContain(badKey)
      expect(String(error)).not.toContain(badSecret)
    }
    expect(() => loadServerConfig({}, { ...STRIPE_ENV, RWA_STRIPE_API_BASE: 'ftp://x' })).toThrow(
      /RWA_STRIPE_API_BASE/,
    )
    expect(() =>
      loadServerConfig({}, { ...STRIPE_ENV, RWA_STRIPE_API_BASE: 'http://127.0.0.1:1/v1' }),
    ).toThrow(/RWA_STRIPE_API_BASE is "http:\/\/127\.0\.0\.1:1\/v1": expected an origin without a path/)
  })

  it('builds the provider the configuration names', async () => {
    const db = await openDatabase(':memory:')
    try {
      expect(paymentProviderFromConfig(loadServerConfig({}, STRIPE_ENV), db)).toBeInstanceOf(
        StripePaymentProvider,
      )
      const lines: string[] = []
      const local = paymentProviderFromConfig(
        loadServerConfig({}, { RWA_STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET }),
        db,
        (line) => lines.push(line),
      )
      expect(local).toBeInstanceOf(LocalPaymentProvider)
      expect(lines).toEqual([expect.stringContaining('RWA_PAYMENT_PROVIDER=local')])
      expect(lines.join('\n')).not.toContain(WEBHOOK_SECRET)
    } finally {
      await db.destroy()
    }
  })
})
