import { useState } from 'preact/hooks'
import { ActionButton } from '../actions.js'
import type { Answer, Problem } from '../api.js'
import { href, Link } from '../router.js'
import { useSession } from '../session.js'
import {
  Details,
  Fields,
  Filters,
  Id,
  IdLink,
  Json,
  listQuery,
  Notice,
  Page,
  Pager,
  Pending,
  ProblemAlert,
  Section,
  Status,
  Table,
  Time,
  useGet,
} from '../ui.js'
import type { PageProps } from './index.js'

interface Approval {
  approval_id: string
  operation: string
  target: { type: string; id: string }
  body: Record<string, unknown>
  status: string
  requested_by: string
  requested_at: string
  expires_at: string
  decided_by: string | null
  decided_at: string | null
  reason: string | null
  /** What the operation answered when it ran (approved) or was refused (failed). */
  outcome: { status: number; body: unknown } | null
}

const STATUSES = ['pending', 'approved', 'rejected', 'expired', 'failed', 'cancelled'] as const

/** A 202 answer: the call waits for a second key instead of running. */
export const isPendingApproval = (answer: Answer<unknown>): boolean =>
  answer.status === 202 && typeof (answer.body as { approval_id?: unknown })?.approval_id === 'string'

export function ApprovalNotice(props: { answer: Answer<unknown> }) {
  const id = (props.answer.body as { approval_id: string }).approval_id
  return (
    <Notice>
      The organization’s policy needs a second key: approval <IdLink page="approvals" id={id} /> now waits for
      one.
    </Notice>
  )
}

const targetPage: Record<string, string> = { token: 'tokens', credential: 'credentials' }

/** What an approved operation answered, in words: a forced transfer's transfer, say. */
function Outcome(props: { value: unknown }) {
  const value = props.value as Record<string, unknown> | null
  if (!value || typeof value !== 'object') return null
  if (typeof value.transfer_id === 'string') {
    return (
      <p>
        It ran: transfer <IdLink page="transfers" id={value.transfer_id} />
        {typeof value.status === 'string' ? (
          <>
            {' '}
            <Status value={value.status} />
          </>
        ) : null}
      </p>
    )
  }
  return <Json value={value} />
}

export function Approvals(props: PageProps) {
  return props.id ? <ApprovalDetail id={props.id} /> : <ApprovalList />
}

/** Approve and Reject, for a key with `agent` (or an owner), on a pending approval. */
function Decide(props: { approval: Approval; onDone: (what: string, answer: Answer<unknown>) => void }) {
  const { approval } = props
  const path = `/console/rwa/approvals/${encodeURIComponent(approval.approval_id)}`
  if (approval.status !== 'pending') return null
  return (
    <span class="row-actions">
      <ActionButton
        label="Approve"
        operation={{ method: 'post', path: '/console/rwa/approvals/{id}/approve' }}
        request={() => ({ path: `${path}/approve` })}
        title={`Approve ${approval.operation} ${approval.approval_id}`}
        description={
          <>
            <p>
              It runs now, evaluated as of now, on {approval.target.type} <Id value={approval.target.id} />,
              as requested by <Id value={approval.requested_by} />:
            </p>
            <Details value={approval.body} />
          </>
        }
        submitLabel="Approve and run"
        onDone={(answer) => props.onDone(`Approved ${approval.approval_id}.`, answer)}
      />
      <ActionButton
        label="Reject"
        operation={{ method: 'post', path: '/console/rwa/approvals/{id}/reject' }}
        request={(v) => ({ path: `${path}/reject`, body: v.reason ? { reason: v.reason } : {} })}
        title={`Reject ${approval.operation} ${approval.approval_id}`}
        description="It will never run."
        fields={[{ name: 'reason', label: 'Reason' }]}
        submitLabel="Reject it"
        danger
        onDone={(answer) => props.onDone(`Rejected ${approval.approval_id}.`, answer)}
      />
    </span>
  )
}

function ApprovalList() {
  const session = useSession()
  const query = listQuery(['status'])
  const list = useGet<{ approvals: Approval[]; total: number; next_cursor: string | null }>(
    '/console/rwa/approvals',
    query,
  )
  const [done, setDone] = useState<{ what: string; answer: Answer<unknown> }>()
  return (
    <Page
      title="Approvals"
      lead="Four eyes: an operation the policy covers waits here until another key approves or rejects it."
    >
      {done ? (
        <Notice>
          {done.what} <Outcome value={done.answer.body} />
        </Notice>
      ) : null}
      <Filters label="Filter approvals" fields={[{ name: 'status', label: 'Status', options: STATUSES }]} />
      <Pending loaded={list} />
      {list.state === 'done' ? (
        <>
          <Table
            caption="Approvals"
            rows={list.data.approvals}
            rowKey={(a) => a.approval_id}
            rowHref={(a) => href('approvals', a.approval_id)}
            empty="No approval matches."
            columns={[
              { title: 'Approval', cell: (a) => <IdLink page="approvals" id={a.approval_id} /> },
              { title: 'Operation', cell: (a) => a.operation },
              { title: 'Status', cell: (a) => <Status value={a.status} /> },
              {
                title: 'Requested by',
                cell: (a) => (
                  <>
                    <Id value={a.requested_by} />
                    {a.requested_by === session.key_id ? <span class="muted"> (this key)</span> : null}
                  </>
                ),
                class: 'wide',
              },
              { title: 'Expires', cell: (a) => <Time at={a.expires_at} />, class: 'wide' },
              {
                title: 'Decision',
                cell: (a) => (
                  <Decide
                    approval={a}
                    onDone={(what, answer) => {
                      setDone({ what, answer })
                      list.reload()
                    }}
                  />
                ),
              },
            ]}
          />
          <Pager
            shown={list.data.approvals.length}
            total={list.data.total}
            nextCursor={list.data.next_cursor}
            noun="approvals"
          />
        </>
      ) : null}
    </Page>
  )
}

function ApprovalDetail(props: { id: string }) {
  const record = useGet<Approval>(`/console/rwa/approvals/${encodeURIComponent(props.id)}`)
  const [done, setDone] = useState<{ what: string; answer: Answer<unknown> }>()
  const a = record.state === 'done' ? record.data : undefined
  return (
    <Page title={`Approval ${props.id}`}>
      <Pending loaded={record} />
      {done ? (
        <Notice>
          {done.what} <Outcome value={done.answer.body} />
        </Notice>
      ) : null}
      {a ? (
        <>
          <Section
            title="Request"
            actions={
              <Decide
                approval={a}
                onDone={(what, answer) => {
                  setDone({ what, answer })
                  record.reload()
                }}
              />
            }
          >
            <Fields
              rows={[
                ['Approval', <Id value={a.approval_id} />],
                ['Operation', a.operation],
                ['Status', <Status value={a.status} />],
                [
                  'On',
                  targetPage[a.target.type] ? (
                    <>
                      {a.target.type} <IdLink page={targetPage[a.target.type]!} id={a.target.id} />
                    </>
                  ) : (
                    <Id value={a.target.id} />
                  ),
                ],
                ['Requested by', <Id value={a.requested_by} />],
                ['Requested', <Time at={a.requested_at} />],
                ['Expires', <Time at={a.expires_at} />],
                ['Decided by', <Id value={a.decided_by} />],
                ['Decided', <Time at={a.decided_at} />],
                ['Reason', a.reason],
              ]}
            />
            <h3>Body</h3>
            <Json value={a.body} />
          </Section>
          {a.outcome ? (
            <Section title="Outcome">
              <p>The operation answered {a.outcome.status}.</p>
              {a.outcome.status >= 400 ? (
                <ProblemAlert problem={a.outcome.body as Problem} title="It was refused" />
              ) : (
                <Outcome value={a.outcome.body} />
              )}
            </Section>
          ) : null}
          <p>
            <Link to={href('approvals')}>All approvals</Link>
          </p>
        </>
      ) : null}
    </Page>
  )
}
