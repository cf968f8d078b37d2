import { useState } from 'preact/hooks'
import { ActionButton } from '../actions.js'
import type { Answer } from '../api.js'
import { href, Link, navigate } from '../router.js'
import {
  Fields,
  Id,
  IdLink,
  listQuery,
  Notice,
  Page,
  Pager,
  Pending,
  Section,
  Status,
  Table,
  Time,
  useGet,
} from '../ui.js'
import type { PageProps } from './index.js'

interface Webhook {
  webhook_id: string
  url: string
  events: string[]
  description: string | null
  status: string
  created_at: string
}

interface Delivery {
  delivery_id: string
  event_id: string
  attempt: number
  at: string
  status_code: number | null
  error: string | null
  next_attempt_at: string | null
}

export function Webhooks(props: PageProps) {
  return props.id ? <WebhookDetail id={props.id} /> : <WebhookList />
}

/** A signing secret, shown once, right after it was made or rotated. */
function Secret(props: { answer: Answer<unknown> }) {
  const body = props.answer.body as { webhook_id: string; secret?: string | null }
  return (
    <Notice>
      <p>
        Endpoint <Id value={body.webhook_id} />: its signing secret is shown only now; this page keeps no
        copy.
      </p>
      {body.secret ? (
        <p>
          <code class="secret">{body.secret}</code>
        </p>
      ) : null}
    </Notice>
  )
}

function WebhookList() {
  const list = useGet<{ webhooks: Webhook[]; total: number; next_cursor: string | null }>(
    '/console/webhooks',
    listQuery([]),
  )
  const [made, setMade] = useState<Answer<unknown>>()
  return (
    <Page
      title="Webhooks"
      lead="Endpoints the organization’s events are delivered to, signed as Standard Webhooks."
    >
      <div class="toolbar">
        <ActionButton
          label="Add endpoint"
          operation={{ method: 'post', path: '/console/webhooks' }}
          request={(v) => ({
            path: '/console/webhooks',
            body: {
              url: v.url,
              events: String(v.events)
                .split(/[\s,]+/)
                .filter((e) => e !== ''),
              ...(v.description ? { description: v.description } : {}),
            },
          })}
          title="Add a webhook endpoint"
          fields={[
            { name: 'url', label: 'URL', type: 'url', required: true },
            {
              name: 'events',
              label: 'Events',
              required: true,
              hint: 'Event types or patterns, separated by commas: transfer.*, key.revoked',
              defaultValue: '*',
            },
            { name: 'description', label: 'Description' },
          ]}
          submitLabel="Add"
          onDone={(answer) => {
            setMade(answer)
            list.reload()
          }}
        />
      </div>
      {made ? <Secret answer={made} /> : null}
      <Pending loaded={list} />
      {list.state === 'done' ? (
        <>
          <Table
            caption="Webhook endpoints"
            rows={list.data.webhooks}
            rowKey={(w) => w.webhook_id}
            rowHref={(w) => href('webhooks', w.webhook_id)}
            empty="No webhook endpoint."
            columns={[
              { title: 'Endpoint', cell: (w) => <IdLink page="webhooks" id={w.webhook_id} /> },
              { title: 'URL', cell: (w) => <Id value={w.url} /> },
              { title: 'Status', cell: (w) => <Status value={w.status} /> },
              { title: 'Events', cell: (w) => w.events.join(', '), class: 'wide' },
            ]}
          />
          <Pager
            shown={list.data.webhooks.length}
            total={list.data.total}
            nextCursor={list.data.next_cursor}
            noun="endpoints"
          />
        </>
      ) : null}
    </Page>
  )
}

function WebhookDetail(props: { id: string }) {
  const path = `/console/webhooks/${encodeURIComponent(props.id)}`
  const record = useGet<Webhook>(path)
  const deliveries = useGet<{ deliveries: Delivery[]; total: number; next_cursor: string | null }>(
    `${path}/deliveries`,
    listQuery([]),
  )
  const [rotated, setRotated] = useState<Answer<unknown>>()
  const [retried, setRetried] = useState<string>()
  const w = record.state === 'done' ? record.data : undefined
  return (
    <Page title={`Webhook ${props.id}`}>
      <Pending loaded={record} />
      {rotated ? <Secret answer={rotated} /> : null}
      {retried ? <Notice>Delivery {retried} attempted again.</Notice> : null}
      {w ? (
        <Section
          title="Endpoint"
          actions={
            <>
              <ActionButton
                label="Rotate secret"
                operation={{ method: 'post', path: '/console/webhooks/{id}/rotate-secret' }}
                request={() => ({ path: `${path}/rotate-secret` })}
                title="Rotate the signing secret"
                description="Deliveries are signed with the new secret from now on."
                submitLabel="Rotate"
                onDone={(answer) => setRotated(answer)}
              />
              <ActionButton
                label="Delete endpoint"
                operation={{ method: 'delete', path: '/console/webhooks/{id}' }}
                request={() => ({ path })}
                title="Delete this endpoint"
                description="No more deliveries will be made to it."
                submitLabel="Delete"
                danger
                onDone={() => navigate(href('webhooks'))}
              />
            </>
          }
        >
          <Fields
            rows={[
              ['Endpoint', <Id value={w.webhook_id} />],
              ['URL', <Id value={w.url} />],
              ['Status', <Status value={w.status} />],
              ['Events', w.events.join(', ')],
              ['Description', w.description],
              ['Created', <Time at={w.created_at} />],
            ]}
          />
        </Section>
      ) : null}
      <Section title="Deliveries">
        <Pending loaded={deliveries} />
        {deliveries.state === 'done' ? (
          <>
            <Table
              caption="Delivery attempts, newest first"
              rows={deliveries.data.deliveries}
              rowKey={(d) => `${d.delivery_id} ${d.attempt}`}
              empty="Nothing delivered yet."
              columns={[
                { title: 'Delivery', cell: (d) => <Id value={d.delivery_id} /> },
                { title: 'Event', cell: (d) => <Id value={d.event_id} />, class: 'wide' },
                { title: 'Attempt', cell: (d) => d.attempt },
                { title: 'At', cell: (d) => <Time at={d.at} /> },
                { title: 'Answer', cell: (d) => (d.status_code === null ? '—' : d.status_code) },
                { title: 'Error', cell: (d) => d.error ?? '—', class: 'wide' },
                { title: 'Next attempt', cell: (d) => <Time at={d.next_attempt_at} />, class: 'wide' },
                {
                  title: 'Retry',
                  cell: (d) => (
                    <ActionButton
                      label="Retry"
                      operation={{
                        method: 'post',
                        path: '/console/webhooks/{id}/deliveries/{delivery_id}/retry',
                      }}
                      request={() => ({
                        path: `${path}/deliveries/${encodeURIComponent(d.delivery_id)}/retry`,
                      })}
                      title={`Retry delivery ${d.delivery_id}`}
                      description="The event is attempted again now."
                      submitLabel="Retry now"
                      onDone={() => {
                        setRetried(d.delivery_id)
                        deliveries.reload()
                      }}
                    />
                  ),
                },
              ]}
            />
            <Pager
              shown={deliveries.data.deliveries.length}
              total={deliveries.data.total}
              nextCursor={deliveries.data.next_cursor}
              noun="attempts"
            />
          </>
        ) : null}
      </Section>
      <p>
        <Link to={href('webhooks')}>All endpoints</Link>
      </p>
    </Page>
  )
}
