import type { Command } from 'commander'
import { EVENTS } from '../flags/events.js'
import { declareFlags as flags } from '../flags/flag.js'
import { examples, pageOptions } from './help.js'

/**
 * `rwa webhooks`, `rwa events` and `rwa listen` (docs/webhooks.md): webhook endpoints, the organization's
 * events, and forwarding them to a local URL signed as a real delivery.
 */
export function declareEvents(program: Command): void {
  const load = () => import('../commands/events.js')
  const webhooks = program
    .command('webhooks')
    .description('Webhook endpoints: where events are POSTed, signed')
  examples(
    flags(
      webhooks.command('create').description('Add an endpoint (owner); prints its secret once'),
      EVENTS.createWebhook,
    ),
    [
      'rwa webhooks create --endpoint https://hooks.example.com/rwa --events "transfer.*,attestation.expiring"',
    ],
  ).action(async (o, c) => (await load()).createWebhook(o, c))
  examples(pageOptions(webhooks.command('list').description('List the endpoints, newest first')), [
    'rwa webhooks list',
  ]).action(async (o, c) => (await load()).listWebhooks(o, c))
  examples(webhooks.command('get').description('Show an endpoint').argument('<webhook_id>'), [
    'rwa webhooks get wh_01JD...',
  ]).action(async (id, o, c) => (await load()).getWebhook(id, o, c))
  examples(webhooks.command('delete').description('Delete an endpoint (owner)').argument('<webhook_id>'), [
    'rwa webhooks delete wh_01JD...',
  ]).action(async (id, o, c) => (await load()).deleteWebhook(id, o, c))
  examples(
    webhooks
      .command('rotate-secret')
      .description('Give an endpoint a new signing secret, printed once (owner)')
      .argument('<webhook_id>'),
    ['rwa webhooks rotate-secret wh_01JD...'],
  ).action(async (id, o, c) => (await load()).rotateSecret(id, o, c))
  examples(
    pageOptions(
      webhooks
        .command('deliveries')
        .description("List an endpoint's delivery attempts, newest first")
        .argument('<webhook_id>'),
    ),
    ['rwa webhooks deliveries wh_01JD...'],
  ).action(async (id, o, c) => (await load()).listDeliveries(id, o, c))
  examples(
    webhooks
      .command('retry')
      .description('Attempt a delivery again now (owner)')
      .argument('<webhook_id>')
      .argument('<delivery_id>'),
    ['rwa webhooks retry wh_01JD... dlv_01JD...'],
  ).action(async (id, delivery, o, c) => (await load()).retryDelivery(id, delivery, o, c))

  const events = program.command('events').description("The organization's events, as webhooks receive them")
  examples(
    pageOptions(flags(events.command('list').description('List events, newest first'), EVENTS.listEvents)),
    ['rwa events list', 'rwa events list --type transfer.approved --json'],
  ).action(async (o, c) => (await load()).listEvents(o, c))
  examples(events.command('get').description('Print an event as JSON').argument('<event_id>'), [
    'rwa events get evt_01JD...',
  ]).action(async (id, o, c) => (await load()).getEvent(id, o, c))
  examples(
    events
      .command('resend')
      .description('Deliver an event again to every subscribed endpoint (owner)')
      .argument('<event_id>'),
    ['rwa events resend evt_01JD...'],
  ).action(async (id, o, c) => (await load()).resendEvent(id, o, c))

  examples(
    program
      .command('listen')
      .description(
        "Forward the organization's new events to a local URL, signed like a real delivery with a whsec_ secret printed at start; one line per event (type, id, the forward's status)",
      )
      .requiredOption('--forward-to <url>', 'where to POST each event, e.g. http://localhost:3000/hooks')
      .option('--events <types>', 'only these types or <resource>.* (comma-separated)'),
    [
      'rwa listen --forward-to http://localhost:3000/hooks',
      'rwa listen --forward-to http://localhost:3000/hooks --events "transfer.*"',
    ],
  ).action(async (o, c) => (await load()).listen(o, c))
}
