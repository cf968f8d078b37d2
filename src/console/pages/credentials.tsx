import { useState } from 'preact/hooks'
import { ActionButton } from '../actions.js'
import type { Answer } from '../api.js'
import { href } from '../router.js'
import {
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
  Section,
  Status,
  Table,
  Time,
  useGet,
} from '../ui.js'
import { ApprovalNotice, isPendingApproval } from './approvals.js'
import type { PageProps } from './index.js'
import { SuspensionAction } from './suspension.js'

interface Credential {
  credential_id: string
  type: string
  jurisdiction: string
  owner_did: string
  property_data: { address: string; type: string; value_usd: number; title_deed: string }
  status: string
  issuer_did: string
  issued_at: string
  valid_until: string | null
  revoked_at: string | null
  revocation_reason: string | null
  vc_jwt: string
  credential_status?: unknown
}

export function Credentials(props: PageProps) {
  return props.id ? <CredentialDetail id={props.id} /> : <CredentialList />
}

const FILTERS = ['jurisdiction', 'status', 'owner_did'] as const

function CredentialList() {
  const list = useGet<{ credentials: Credential[]; total: number; next_cursor: string | null }>(
    '/console/rwa/credentials',
    listQuery(FILTERS),
  )
  return (
    <Page title="Credentials">
      <Filters
        label="Filter credentials"
        fields={[
          { name: 'jurisdiction', label: 'Jurisdiction', placeholder: 'US' },
          { name: 'status', label: 'Status', options: ['active', 'suspended', 'revoked'] },
          { name: 'owner_did', label: 'Owner DID', placeholder: 'did:web:…' },
        ]}
      />
      <Pending loaded={list} />
      {list.state === 'done' ? (
        <>
          <Table
            caption="Credentials"
            rows={list.data.credentials}
            rowKey={(c) => c.credential_id}
            rowHref={(c) => href('credentials', c.credential_id)}
            empty="No credential matches."
            columns={[
              { title: 'Credential', cell: (c) => <IdLink page="credentials" id={c.credential_id} /> },
              { title: 'Status', cell: (c) => <Status value={c.status} /> },
              { title: 'Jurisdiction', cell: (c) => c.jurisdiction },
              { title: 'Owner', cell: (c) => <Id value={c.owner_did} />, class: 'wide' },
              { title: 'Property', cell: (c) => c.property_data.address, class: 'wide' },
              { title: 'Issued', cell: (c) => <Time at={c.issued_at} />, class: 'wide' },
            ]}
          />
          <Pager
            shown={list.data.credentials.length}
            total={list.data.total}
            nextCursor={list.data.next_cursor}
            noun="credentials"
          />
        </>
      ) : null}
    </Page>
  )
}

function CredentialDetail(props: { id: string }) {
  const path = `/console/rwa/credentials/${encodeURIComponent(props.id)}`
  const record = useGet<Credential>(path)
  const [done, setDone] = useState<Answer<unknown>>()
  const [changed, setChanged] = useState<string>()
  return (
    <Page title={`Credential ${props.id}`}>
      <Pending loaded={record} />
      {done ? (
        isPendingApproval(done) ? (
          <ApprovalNotice answer={done} />
        ) : (
          <Notice>Credential revoked.</Notice>
        )
      ) : null}
      {changed && !done ? <Notice>{changed}</Notice> : null}
      {record.state === 'done' ? (
        <>
          <Section
            title="Record"
            actions={
              record.data.status !== 'revoked' ? (
                <>
                  <SuspensionAction
                    kind="credential"
                    id={props.id}
                    status={record.data.status}
                    onDone={(message) => {
                      setChanged(message)
                      record.reload()
                    }}
                  />
                  <ActionButton
                    label="Revoke credential"
                    operation={{ method: 'post', path: '/console/rwa/credentials/{id}/revoke' }}
                    request={(v) => ({ path: `${path}/revoke`, body: v.reason ? { reason: v.reason } : {} })}
                    title={`Revoke credential ${props.id}`}
                    description="Revocation is final: its status-list bit is set, and its token can no longer be transferred."
                    fields={[{ name: 'reason', label: 'Reason' }]}
                    submitLabel="Revoke now"
                    danger
                    onDone={(answer) => {
                      setDone(answer)
                      record.reload()
                    }}
                  />
                </>
              ) : null
            }
          >
            <Fields
              rows={[
                ['Credential', <Id value={record.data.credential_id} />],
                ['Status', <Status value={record.data.status} />],
                ['Type', record.data.type],
                ['Jurisdiction', <IdLink page="jurisdictions" id={record.data.jurisdiction} />],
                ['Owner DID', <Id value={record.data.owner_did} />],
                ['Address', record.data.property_data.address],
                ['Property type', record.data.property_data.type],
                ['Value (USD)', record.data.property_data.value_usd.toLocaleString('en')],
                ['Title deed', <Id value={record.data.property_data.title_deed} />],
                ['Issuer DID', <Id value={record.data.issuer_did} />],
                ['Issued', <Time at={record.data.issued_at} />],
                ['Valid until', <Time at={record.data.valid_until} />],
                ['Revoked', <Time at={record.data.revoked_at} />],
                ['Revocation reason', record.data.revocation_reason],
              ]}
            />
          </Section>
          <Section title="Signed credential">
            <details>
              <summary>VC-JWT and status entry</summary>
              {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region is reached by keyboard. */}
              <pre class="jwt" tabIndex={0}>
                {record.data.vc_jwt}
              </pre>
              <Json value={record.data.credential_status} />
            </details>
          </Section>
        </>
      ) : null}
    </Page>
  )
}
