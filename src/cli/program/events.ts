import type { Command } from 'commander'
import { command, declareGroup, declareOperation } from './operation-command.js'

/**
 * `rwa webhooks`, `rwa events` and `rwa listen` (docs/webhooks.md): webhook endpoints, the organization's
 * events, and forwarding them to a local URL signed as a real delivery.
 */
export function declareEvents(program: Command): void {
  const load = () => import('../commands/events.js')
  const webhook = { id: '<webhook_id>' }
  declareGroup(
    program.command('webhooks').description('Webhook endpoints: where events are POSTed, signed'),
    {
      create: command({
        operation: 'createWebhook',
        description: 'Add an endpoint (owner); prints its secret once',
        flags: {
          // --url is the server's.
          url: {
            flag: '--endpoint <url>',
            help: 'where events are POSTed (https; http to loopback only with --allow-http-webhooks)',
            prompt: 'URL',
          },
          events: {
            flag: '--events <types>',
            help: 'event types, <resource>.* or * (comma-separated, repeatable)',
            prompt: 'Event types (comma-separated)',
          },
          description: { help: 'what it is for' },
        },
        file: false,
        examples: [
          'rwa webhooks create --endpoint https://hooks.example.com/rwa --events "transfer.*,attestation.expiring"',
        ],
        run: async () => (await load()).createWebhook,
      }),
      list: command({
        operation: 'listWebhooks',
        description: 'List the endpoints, newest first',
        examples: ['rwa webhooks list'],
        run: async () => (await load()).listWebhooks,
      }),
      get: command({
        operation: 'getWebhook',
        description: 'Show an endpoint',
        args: webhook,
        examples: ['rwa webhooks get wh_01JD...'],
        run: async () => (await load()).getWebhook,
      }),
      delete: command({
        operation: 'deleteWebhook',
        description: 'Delete an endpoint (owner)',
        args: webhook,
        examples: ['rwa webhooks delete wh_01JD...'],
        run: async () => (await load()).deleteWebhook,
      }),
      'rotate-secret': command({
        operation: 'rotateWebhookSecret',
        description: 'Give an endpoint a new signing secret, printed once (owner)',
        args: webhook,
        examples: ['rwa webhooks rotate-secret wh_01JD...'],
        run: async () => (await load()).rotateSecret,
      }),
      deliveries: command({
        operation: 'listWebhookDeliveries',
        description: "List an endpoint's delivery attempts, newest first",
        args: webhook,
        examples: ['rwa webhooks deliveries wh_01JD...'],
        run: async () => (await load()).listDeliveries,
      }),
      retry: command({
        operation: 'retryWebhookDelivery',
        description: 'Attempt a delivery again now (owner)',
        args: { id: '<webhook_id>', delivery_id: '<delivery_id>' },
        examples: ['rwa webhooks retry wh_01JD... dlv_01JD...'],
        run: async () => (await load()).retryDelivery,
      }),
    },
  )

  const event = { id: '<event_id>' }
  declareGroup(program.command('events').description("The organization's events, as webhooks receive them"), {
    list: command({
      operation: 'listEvents',
      description: 'List events, newest first',
      flags: { type: { example: 'transfer.approved' } },
      examples: ['rwa events list', 'rwa events list --type transfer.approved --json'],
      run: async () => (await load()).listEvents,
    }),
    get: command({
      operation: 'getEvent',
      description: 'Print an event as JSON',
      args: event,
      examples: ['rwa events get evt_01JD...'],
      run: async () => (await load()).getEvent,
    }),
    resend: command({
      operation: 'resendEvent',
      description: 'Deliver an event again to every subscribed endpoint (owner)',
      args: event,
      examples: ['rwa events resend evt_01JD...'],
      run: async () => (await load()).resendEvent,
    }),
  })

  declareOperation(program, 'listen', {
    operation: 'streamEvents',
    description:
      "Forward the organization's new events to a local URL, signed like a real delivery with a whsec_ secret printed at start; one line per event (type, id, the forward's status)",
    flags: {
      events: { flag: '--events <types>', help: 'only these types or <resource>.* (comma-separated)' },
    },
    options: (c) =>
      c.requiredOption('--forward-to <url>', 'where to POST each event, e.g. http://localhost:3000/hooks'),
    examples: [
      'rwa listen --forward-to http://localhost:3000/hooks',
      'rwa listen --forward-to http://localhost:3000/hooks --events "transfer.*"',
    ],
    run: async () => (await load()).listen,
  })
}
