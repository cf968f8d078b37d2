import type { Flag } from './flag.js'
import { list } from './parse.js'

/* The flag tables of `rwa webhooks` and `rwa events` (see ./flag.ts). */

export const EVENTS = {
  createWebhook: [
    {
      field: 'url',
      flag: '--endpoint <url>',
      help: 'where events are POSTed (https; http to loopback only with --allow-http-webhooks)',
      prompt: 'URL',
      example: 'https://hooks.example.com/rwa',
    },
    {
      field: 'events',
      flag: '--events <types>',
      help: 'event types, <resource>.* or * (comma-separated, repeatable)',
      prompt: 'Event types (comma-separated)',
      parse: (value) => list(value),
      repeatable: true,
      example: 'transfer.*,attestation.expiring',
    },
    { field: 'description', flag: '--description <text>', help: 'what it is for', example: 'Back office' },
  ],
  listEvents: [
    { field: 'type', flag: '--type <type>', help: 'only events of this type', example: 'transfer.approved' },
  ],
} satisfies Record<string, Flag[]>
