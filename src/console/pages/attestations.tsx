import { useState } from 'preact/hooks'
import { ActionButton } from '../actions.js'
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
import type { PageProps } from './index.js'
import { SuspensionAction } from './suspension.js'

interface Attestation {
  attestation_id: string
  jurisdiction: string | null
  subject_did: string
  type: string
  attester?: string
  source?: string
  issuer_id?: string
  credential_id?: string | null
  evidence?: string | null
  issuer_did: string
  issued_at?: string
  valid_until: string | null
  vc_jwt: string
  credential_status?: unknown
  status: string
  revoked_at?: string | null
  revocation_reason?: string | null
}

export function Attestations(props: PageProps) {
  return props.id ? <AttestationDetail id={props.id} /> : <AttestationList />
}

const FILTERS = ['jurisdiction', 'type', 'subject_did', 'credential_id'] as const

function AttestationList() {
  const list = useGet<{ attestations: Attestation[]; total: number; next_cursor: string | null }>(
    '/console/rwa/attestations',
    listQuery(FILTERS),
  )
  return (
    <Page title="Attestations">
      <Filters
        label="Filter attestations"
        fields={[
          { name: 'jurisdiction', label: 'Jurisdiction', placeholder: 'SG' },
          { name: 'type', label: 'Type', placeholder: 'kyc' },
          { name: 'subject_did', label: 'Subject DID', placeholder: 'did:web:…' },
          { name: 'credential_id', label: 'Credential', placeholder: 'cred_…' },
        ]}
      />
      <Pending loaded={list} />
      {list.state === 'done' ? (
        <>
          <Table
            caption="Attestations"
            rows={list.data.attestations}
            rowKey={(a) => a.attestation_id}
            rowHref={(a) => href('attestations', a.attestation_id)}
            empty="No attestation matches."
            columns={[
              { title: 'Attestation', cell: (a) => <IdLink page="attestations" id={a.attestation_id} /> },
              { title: 'Type', cell: (a) => a.type },
              { title: 'Status', cell: (a) => <Status value={a.status} /> },
              {
                title: 'Jurisdiction',
                cell: (a) => a.jurisdiction ?? <span class="muted">outside issuer</span>,
              },
              { title: 'Subject', cell: (a) => <Id value={a.subject_did} />, class: 'wide' },
              { title: 'Valid until', cell: (a) => <Time at={a.valid_until} />, class: 'wide' },
            ]}
          />
          <Pager
            shown={list.data.attestations.length}
            total={list.data.total}
            nextCursor={list.data.next_cursor}
            noun="attestations"
          />
        </>
      ) : null}
    </Page>
  )
}

function AttestationDetail(props: { id: string }) {
  const path = `/console/rwa/attestations/${encodeURIComponent(props.id)}`
  const record = useGet<Attestation>(path)
  const [revoked, setRevoked] = useState(false)
  const [changed, setChanged] = useState<string>()
  const a = record.state === 'done' ? record.data : undefined
  return (
    <Page title={`Attestation ${props.id}`}>
      <Pending loaded={record} />
      {revoked ? <Notice>Attestation revoked.</Notice> : changed ? <Notice>{changed}</Notice> : null}
      {a ? (
        <>
          <Section
            title="Record"
            actions={
              a.status !== 'revoked' && a.source !== 'external' ? (
                <>
                  <SuspensionAction
                    kind="attestation"
                    id={props.id}
                    status={a.status}
                    onDone={(message) => {
                      setChanged(message)
                      record.reload()
                    }}
                  />
                  <ActionButton
                    label="Revoke attestation"
                    operation={{ method: 'post', path: '/console/rwa/attestations/{id}/revoke' }}
                    request={(v) => ({ path: `${path}/revoke`, body: v.reason ? { reason: v.reason } : {} })}
                    title={`Revoke attestation ${props.id}`}
                    description="Revocation is final: a transfer that relied on it fails that check afterwards."
                    fields={[{ name: 'reason', label: 'Reason' }]}
                    submitLabel="Revoke now"
                    danger
                    onDone={() => {
                      setRevoked(true)
                      record.reload()
                    }}
                  />
                </>
              ) : null
            }
          >
            <Fields
              rows={[
                ['Attestation', <Id value={a.attestation_id} />],
                ['Status', <Status value={a.status} />],
                ['Type', a.type],
                ['Source', a.source ?? 'self'],
                ['Jurisdiction', a.jurisdiction ? <IdLink page="jurisdictions" id={a.jurisdiction} /> : null],
                ...(a.issuer_id
                  ? ([['Issuer', <IdLink page="issuers" id={a.issuer_id} />]] as Array<
                      [string, preact.ComponentChildren]
                    >)
                  : []),
                ['Subject DID', <Id value={a.subject_did} />],
                ['Attester', a.attester ?? null],
                ['Credential', a.credential_id ? <IdLink page="credentials" id={a.credential_id} /> : null],
                ['Evidence', a.evidence ? <Id value={a.evidence} /> : null],
                ['Issuer DID', <Id value={a.issuer_did} />],
                ['Issued', <Time at={a.issued_at} />],
                ['Valid until', <Time at={a.valid_until} />],
                ['Revoked', <Time at={a.revoked_at} />],
                ['Revocation reason', a.revocation_reason ?? null],
              ]}
            />
          </Section>
          <Section title="Signed attestation">
            <details>
              <summary>VC-JWT and status entry</summary>
              {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region is reached by keyboard. */}
              <pre class="jwt" tabIndex={0}>
                {a.vc_jwt}
              </pre>
              <Json value={a.credential_status} />
            </details>
          </Section>
        </>
      ) : null}
    </Page>
  )
}
