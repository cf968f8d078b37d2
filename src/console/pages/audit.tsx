import { AUDIT_ACTIONS } from 'virtual:rwa-route-access'
import { href, Link } from '../router.js'
import { useCan } from '../session.js'
import { Filters, Id, IdLink, Json, listQuery, Page, Pager, Pending, Table, Time, useGet } from '../ui.js'

interface AuditEvent {
  event_id: string
  at: string
  actor: { key_id: string; roles: string[] } | { system: string }
  request_id: string | null
  action: string
  target: { type: string; id: string }
  changes?: { before: unknown; after: unknown } | null
  log_index?: number | null
}

/** The page of an audit target's type, where it has one. */
const TARGET_PAGES: Record<string, string> = {
  jurisdiction: 'jurisdictions',
  credential: 'credentials',
  attestation: 'attestations',
  token: 'tokens',
  transfer: 'transfers',
  approval: 'approvals',
  webhook: 'webhooks',
  issuer: 'issuers',
  identity: 'identities',
}

function Target(props: { target: AuditEvent['target'] }) {
  const page = TARGET_PAGES[props.target.type]
  return (
    <>
      <span class="muted">{props.target.type}</span>{' '}
      {page ? <IdLink page={page} id={props.target.id} /> : <Id value={props.target.id} />}
    </>
  )
}

export function Audit() {
  const can = useCan()
  const allowed = can('get', '/console/audit')
  const list = useGet<{ events: AuditEvent[]; total: number; next_cursor: string | null }>(
    allowed ? '/console/audit' : null,
    listQuery(['action', 'target_id', 'actor_key_id', 'since', 'until']),
  )
  return (
    <Page title="Audit" lead="Every write, who made it and through which request, newest first.">
      {!allowed ? (
        <p class="notice" role="status">
          The audit log is for keys with the owner or auditor role; this key has neither.
        </p>
      ) : (
        <>
          <Filters
            label="Filter the audit log"
            fields={[
              { name: 'action', label: 'Action', list: AUDIT_ACTIONS, placeholder: 'transfer.rejected' },
              { name: 'target_id', label: 'Target id', placeholder: 'tx_…' },
              { name: 'actor_key_id', label: 'Actor key', placeholder: 'key_…' },
              { name: 'since', label: 'Since (UTC)', type: 'datetime-local' },
              { name: 'until', label: 'Until (UTC)', type: 'datetime-local' },
            ]}
          />
          <Pending loaded={list} />
          {list.state === 'done' ? (
            <>
              <Table
                caption="Audit events"
                rows={list.data.events}
                rowKey={(e) => e.event_id}
                empty="No event matches."
                columns={[
                  { title: 'At', cell: (e) => <Time at={e.at} /> },
                  { title: 'Action', cell: (e) => <code>{e.action}</code> },
                  { title: 'Target', cell: (e) => <Target target={e.target} /> },
                  {
                    title: 'Actor',
                    cell: (e) =>
                      'key_id' in e.actor ? <Id value={e.actor.key_id} /> : <span>{e.actor.system}</span>,
                    class: 'wide',
                  },
                  {
                    title: 'Log entry',
                    cell: (e) =>
                      typeof e.log_index === 'number' ? (
                        <Link to={href('log', e.log_index)}>#{e.log_index}</Link>
                      ) : (
                        '—'
                      ),
                  },
                  {
                    title: 'Changes',
                    cell: (e) =>
                      e.changes ? (
                        <details>
                          <summary>before and after</summary>
                          <Json value={e.changes} />
                        </details>
                      ) : (
                        '—'
                      ),
                    class: 'wide',
                  },
                ]}
              />
              <Pager
                shown={list.data.events.length}
                total={list.data.total}
                nextCursor={list.data.next_cursor}
                noun="events"
              />
            </>
          ) : null}
        </>
      )}
    </Page>
  )
}
