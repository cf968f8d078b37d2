import { Link, href } from '../router.js'
import { useCan, useSession } from '../session.js'
import { IdLink, Page, Pending, Section, Status, Table, Time, useGet } from '../ui.js'

interface Usage {
  tier: string
  limits: Record<string, number | 'unlimited'>
  trial_ends_at: string | null
  totals: { total_requests: number; total_dids_created: number; total_skills_registered: number }
  daily_usage: Array<{ date: string; request_count: number; dids_created: number; skills_registered: number }>
}

interface Approval {
  approval_id: string
  operation: string
  target: { type: string; id: string }
  requested_by: string
  requested_at: string
  expires_at: string
  status: string
}

const COUNTS = [
  { title: 'Jurisdictions', page: 'jurisdictions', path: '/console/rwa/jurisdictions' },
  { title: 'Credentials', page: 'credentials', path: '/console/rwa/credentials' },
  { title: 'Tokens', page: 'tokens', path: '/console/rwa/tokens' },
  { title: 'Transfers', page: 'transfers', path: '/console/rwa/transfers' },
  { title: 'Rejected transfers', page: 'transfers', path: '/console/rwa/transfers', status: 'rejected' },
  { title: 'Pending approvals', page: 'approvals', path: '/console/rwa/approvals', status: 'pending' },
] as const

function Count(props: (typeof COUNTS)[number]) {
  const status = 'status' in props ? props.status : undefined
  const loaded = useGet<{ total: number }>(props.path, { limit: 1, status })
  return (
    <li class="count">
      <Link to={href(props.page, undefined, { status })} class="count-link">
        <span class="count-value">{loaded.state === 'done' ? loaded.data.total : '…'}</span>
        <span class="count-title">{props.title}</span>
      </Link>
    </li>
  )
}

const limitText = (limit: number | 'unlimited' | undefined) =>
  limit === undefined ? '—' : limit === 'unlimited' ? 'unlimited' : limit.toLocaleString('en')

/** One quantity against its limit, as a bar and in words. */
function Meter(props: { label: string; used: number; limit: number | 'unlimited' | undefined }) {
  const { used, limit } = props
  const share = typeof limit === 'number' && limit > 0 ? Math.min(1, used / limit) : 0
  const words = `${props.label}: ${used.toLocaleString('en')} of ${limitText(limit)}`
  return (
    <div class="meter">
      <div class="meter-label">
        <span>{props.label}</span>
        <span>
          {used.toLocaleString('en')} / {limitText(limit)}
          {typeof limit === 'number' ? ` (${(share * 100).toFixed(share < 0.01 && used > 0 ? 2 : 0)} %)` : ''}
        </span>
      </div>
      <svg class="meter-bar" viewBox="0 0 100 6" preserveAspectRatio="none" role="img" aria-label={words}>
        <rect x="0" y="0" width="100" height="6" class="meter-track" />
        <rect
          x="0"
          y="0"
          width={Math.max(used > 0 ? 0.5 : 0, share * 100)}
          height="6"
          class={share > 0.8 ? 'meter-fill hot' : 'meter-fill'}
        />
      </svg>
    </div>
  )
}

/** Requests per day, as bars, against the daily limit. */
function DailyChart(props: { days: Usage['daily_usage']; limit: number | 'unlimited' | undefined }) {
  const max = Math.max(1, ...props.days.map((d) => d.request_count))
  const width = 560
  const height = 160
  const bar = width / Math.max(1, props.days.length)
  const described = props.days.map((d) => `${d.date}: ${d.request_count}`).join('; ')
  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${width} ${height + 24}`} role="img" aria-label={`Requests per day. ${described}`}>
        {props.days.map((d, i) => {
          const h = (d.request_count / max) * height
          return (
            <g key={d.date}>
              <title>{`${d.date}: ${d.request_count} requests`}</title>
              <rect
                x={i * bar + 3}
                y={height - h}
                width={bar - 6}
                height={Math.max(h, d.request_count > 0 ? 1 : 0)}
                class="bar"
              />
              {i % Math.ceil(props.days.length / 7) === 0 ? (
                <text x={i * bar + bar / 2} y={height + 16} text-anchor="middle" class="axis">
                  {d.date.slice(5)}
                </text>
              ) : null}
            </g>
          )
        })}
        <line x1="0" x2={width} y1={height} y2={height} class="baseline" />
      </svg>
      <figcaption>
        Requests per day over the last {props.days.length} days (highest {max.toLocaleString('en')}); the
        daily limit is {limitText(props.limit)}.
      </figcaption>
    </figure>
  )
}

export function Overview() {
  const session = useSession()
  const can = useCan()
  const usage = useGet<Usage>(`/console/billing/usage/${encodeURIComponent(session.org_id)}`, { days: 14 })
  const approvals = useGet<{ approvals: Approval[]; total: number }>('/console/rwa/approvals', {
    status: 'pending',
    limit: 5,
  })
  const today = usage.state === 'done' ? usage.data.daily_usage[usage.data.daily_usage.length - 1] : undefined
  return (
    <Page
      title="Overview"
      lead={`Organization ${session.org_id}: what it holds, what it used, and what waits for a decision.`}
    >
      <Section title="Records">
        <ul class="counts">
          {COUNTS.map((c) => (
            <Count key={c.title} {...c} />
          ))}
        </ul>
      </Section>
      <Section title="Usage against limits">
        <Pending loaded={usage} />
        {usage.state === 'done' ? (
          <>
            <p>
              Tier <strong>{usage.data.tier}</strong>
              {usage.data.trial_ends_at ? (
                <>
                  , trial until <Time at={usage.data.trial_ends_at} />
                </>
              ) : null}
              ; {limitText(usage.data.limits.requests_per_minute)} requests per minute.
            </p>
            <div class="meters">
              <Meter
                label="Requests today"
                used={today?.request_count ?? 0}
                limit={usage.data.limits.requests_per_day}
              />
              <Meter
                label="DIDs created"
                used={usage.data.totals.total_dids_created}
                limit={usage.data.limits.max_dids}
              />
              <Meter
                label="Assets tokenized"
                used={usage.data.totals.total_skills_registered}
                limit={usage.data.limits.max_skills}
              />
            </div>
            <DailyChart days={usage.data.daily_usage} limit={usage.data.limits.requests_per_day} />
          </>
        ) : null}
      </Section>
      <Section title="Pending approvals">
        <Pending loaded={approvals} />
        {approvals.state === 'done' ? (
          <>
            <Table
              caption="Pending approvals"
              rows={approvals.data.approvals}
              rowKey={(a) => a.approval_id}
              rowHref={(a) => href('approvals', a.approval_id)}
              empty="Nothing waits for a second key."
              columns={[
                { title: 'Approval', cell: (a) => <IdLink page="approvals" id={a.approval_id} /> },
                { title: 'Operation', cell: (a) => a.operation },
                { title: 'Status', cell: (a) => <Status value={a.status} /> },
                { title: 'Expires', cell: (a) => <Time at={a.expires_at} />, class: 'wide' },
              ]}
            />
            {approvals.data.total > 0 ? (
              <p>
                <Link to={href('approvals')}>
                  {can('post', '/console/rwa/approvals/{id}/approve') ? 'Decide on them' : 'See them'} (
                  {approvals.data.total})
                </Link>
              </p>
            ) : null}
          </>
        ) : null}
      </Section>
    </Page>
  )
}
