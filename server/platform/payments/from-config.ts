import type { ServerConfig } from '../config.js'
import type { Db } from '../db/database.js'
import { LocalPaymentProvider } from './local-provider.js'
import type { PaymentProvider } from './provider.js'
import { StripePaymentProvider } from './stripe-provider.js'

/**
 * The payment provider RWA_PAYMENT_PROVIDER names. `loadServerConfig` has already checked that the
 * Stripe variables it needs are set. With `local`, the RWA_STRIPE_* variables are not used (and the
 * Stripe webhook answers 404), so `log` says so when some are set.
 */
export function paymentProviderFromConfig(
  config: ServerConfig,
  db: Db,
  log: (line: string) => void = () => {},
): PaymentProvider {
  if (config.paymentProvider === 'stripe') {
    return new StripePaymentProvider({
      secretKey: config.stripeSecretKey!,
      webhookSecret: config.stripeWebhookSecret!,
      prices: { pro: config.stripePricePro!, enterprise: config.stripePriceEnterprise },
      apiBase: config.stripeApiBase,
    })
  }
  if (config.stripeSecretKey !== undefined || config.stripeWebhookSecret !== undefined) {
    log('RWA_STRIPE_* is set but RWA_PAYMENT_PROVIDER=local: Stripe is not used and its webhook is disabled')
  }
  return new LocalPaymentProvider(db)
}
