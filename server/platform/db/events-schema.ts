/*
 * The events tables (migration 0016, docs/webhooks.md): the outbox of events, the organizations' webhook
 * endpoints, the deliveries of events to them and each attempt, the marks of scheduled events fired,
 * and the leases of the jobs that run on one instance at a time. Part of schema.ts's `Database`.
 */

/** One event, written in the transaction of its change. `data` is JSON text: `{ object }`. */
export interface EventsTable {
  event_id: string
  org_id: string
  type: string
  created_at: string
  data: string
}

/** A webhook endpoint. `events` is JSON text (an array of selectors). */
export interface WebhookEndpointsTable {
  webhook_id: string
  org_id: string
  url: string
  events: string
  description: string | null
  status: 'enabled' | 'disabled'
  /**
   * The signing secret `whsec_...`: kept, since every delivery is signed with it (an HMAC needs the
   * secret itself, unlike an API key, whose hash is enough). Never logged, never in an audit event.
   */
  secret: string
  created_at: string
  /** When its deliveries started failing with no success since; null while they succeed. */
  failing_since: string | null
}

/**
 * One event to deliver to one endpoint. `pending` until it succeeds (`succeeded`) or its 3 days of
 * retries end (`failed`). An instance claims a due delivery by setting `lease_until` and its own
 * `lease_token`; a claim whose instance died expires with its lease and is taken again.
 */
export interface WebhookDeliveriesTable {
  delivery_id: string
  org_id: string
  webhook_id: string
  event_id: string
  status: 'pending' | 'succeeded' | 'failed'
  attempts: number
  /** When it is due; null once it has succeeded or failed. */
  next_attempt_at: string | null
  lease_until: string | null
  lease_token: string | null
  created_at: string
}

/** One attempt of a delivery, as `GET /console/webhooks/{id}/deliveries` lists it. */
export interface WebhookAttemptsTable {
  attempt_id: string
  org_id: string
  webhook_id: string
  delivery_id: string
  event_id: string
  attempt: number
  at: string
  status_code: number | null
  error: string | null
  next_attempt_at: string | null
}

/** A scheduled event fired: one row per record, type and threshold, so each fires once. */
export interface ScheduledEventMarksTable {
  type: string
  subject_id: string
  /** Which threshold: `30d`, `7d`, `1d`, `3d`, or an hour for `limit.reached`. */
  threshold: string
  org_id: string
  fired_at: string
}

/** A job that runs on one instance at a time: which instance holds it, until when. */
export interface JobLeasesTable {
  job: string
  holder: string
  lease_until: string
}
