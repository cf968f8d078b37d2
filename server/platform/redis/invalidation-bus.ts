import { randomUUID } from 'node:crypto'
import type { Redis } from 'ioredis'
import type { Invalidation, InvalidationBus } from '../invalidation.js'
import { pingRedis, type RedisStateListener } from './connection.js'

/**
 * Invalidations over Redis pub/sub: every instance publishes what it changed on one channel and
 * forgets what the others publish, within milliseconds. A message carries the publishing instance's
 * id, so an instance skips its own (it forgot the change before publishing).
 *
 * Pub/sub keeps no messages: one published while an instance is disconnected is lost to it. So when
 * the subscription comes back after an outage, the bus delivers `{ kind: 'all' }` (forget everything),
 * and the caches' TTL bounds what a message lost otherwise can leave stale. A failed publish is
 * reported, never thrown: the change is committed, and the others' TTL will catch up.
 */
export class RedisInvalidationBus implements InvalidationBus {
  private readonly origin = randomUUID()
  private readonly channel: string
  private readonly listeners: Array<(message: Invalidation) => void> = []
  /** Whether the subscription is in place now, and whether it ever was (so a new one follows an outage). */
  private subscribed = false
  private everSubscribed = false
  /** Whether an outage was reported (a lost subscription or a failed publish) and not yet its end. */
  private lost = false

  /** `publisher` is any connection; `subscriber` becomes a dedicated subscriber connection. */
  constructor(
    private readonly publisher: Redis,
    private readonly subscriber: Redis,
    private readonly options: { prefix: string; onState?: RedisStateListener },
  ) {
    this.channel = `${options.prefix}invalidations`
    subscriber.on('message', (channel: string, text: string) => {
      if (channel === this.channel) this.receive(text)
    })
    subscriber.on('close', () => {
      if (!this.subscribed) return
      this.subscribed = false
      this.reportLost()
    })
    // Every (re)connection subscribes again; after an outage, forget everything.
    subscriber.on('ready', () => void this.listen())
  }

  /** Subscribes on the current connection; resolves once Redis confirmed the subscription. */
  async start(): Promise<void> {
    await this.listen()
  }

  publish(message: Invalidation): void {
    this.publisher.publish(this.channel, JSON.stringify({ origin: this.origin, message })).then(
      () => {
        if (this.subscribed) this.reportBack()
      },
      (error: unknown) => this.reportLost(error),
    )
  }

  subscribe(listener: (message: Invalidation) => void): void {
    this.listeners.push(listener)
  }

  async ping(): Promise<void> {
    if (!this.subscribed) throw new Error('not subscribed to the invalidation channel')
    await pingRedis(this.publisher)
  }

  async close(): Promise<void> {
    this.subscribed = false
    this.subscriber.removeAllListeners('close')
    this.subscriber.disconnect()
  }

  private async listen(): Promise<void> {
    const afterOutage = !this.subscribed && this.everSubscribed
    try {
      await this.subscriber.subscribe(this.channel)
    } catch {
      return // the next 'ready' tries again
    }
    if (this.subscribed) return
    this.subscribed = true
    this.everSubscribed = true
    if (!afterOutage) return
    this.deliver({ kind: 'all' })
    this.reportBack()
  }

  private reportLost(error?: unknown): void {
    if (this.lost) return
    this.lost = true
    this.options.onState?.({ component: 'invalidations', state: 'lost', error })
  }

  private reportBack(): void {
    if (!this.lost) return
    this.lost = false
    this.options.onState?.({ component: 'invalidations', state: 'back' })
  }

  private receive(text: string): void {
    let parsed: { origin?: unknown; message?: Invalidation }
    try {
      parsed = JSON.parse(text)
    } catch {
      return
    }
    if (parsed.origin === this.origin || !isInvalidation(parsed.message)) return
    this.deliver(parsed.message)
  }

  private deliver(message: Invalidation): void {
    for (const listener of this.listeners) listener(message)
  }
}

function isInvalidation(value: unknown): value is Invalidation {
  const m = value as Record<string, unknown> | null
  if (!m || typeof m !== 'object') return false
  if (m.kind === 'org' || m.kind === 'webhooks' || m.kind === 'events') return typeof m.orgId === 'string'
  if (m.kind === 'key-revoked' || m.kind === 'key-changed') return typeof m.keyId === 'string'
  return m.kind === 'all' || m.kind === 'signing-keys'
}
