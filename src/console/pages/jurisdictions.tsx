import { href } from '../router.js'
import {
  Fields,
  Id,
  IdLink,
  listQuery,
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
import { edgeName } from './trust.js'

interface Jurisdiction {
  jurisdiction_id: string
  name: string
  regulatory_body: string
  frameworks: string[]
  credential_types: string[]
  transfer_requirements: string[]
  external_only?: string[]
  issuer_did: string
  created_at: string
  updated_at: string
}

export function Jurisdictions(props: PageProps) {
  return props.id ? <JurisdictionDetail id={props.id} /> : <JurisdictionList />
}

function JurisdictionList() {
  const list = useGet<{ jurisdictions: Jurisdiction[]; total: number; next_cursor: string | null }>(
    '/console/rwa/jurisdictions',
    listQuery([]),
  )
  return (
    <Page title="Jurisdictions">
      <Pending loaded={list} />
      {list.state === 'done' ? (
        <>
          <Table
            caption="Jurisdictions"
            rows={list.data.jurisdictions}
            rowKey={(j) => j.jurisdiction_id}
            rowHref={(j) => href('jurisdictions', j.jurisdiction_id)}
            empty="No jurisdiction registered yet."
            columns={[
              { title: 'Jurisdiction', cell: (j) => <IdLink page="jurisdictions" id={j.jurisdiction_id} /> },
              { title: 'Name', cell: (j) => j.name },
              { title: 'Regulator', cell: (j) => j.regulatory_body, class: 'wide' },
              { title: 'Transfer requirements', cell: (j) => j.transfer_requirements.join(', ') || '—' },
            ]}
          />
          <Pager
            shown={list.data.jurisdictions.length}
            total={list.data.total}
            nextCursor={list.data.next_cursor}
            noun="jurisdictions"
          />
        </>
      ) : null}
    </Page>
  )
}

function JurisdictionDetail(props: { id: string }) {
  const path = `/console/rwa/jurisdictions/${encodeURIComponent(props.id)}`
  const record = useGet<Jurisdiction>(path)
  const trust = useGet<{
    trust_relations: Array<{
      trust_id: string
      from_jurisdiction: string
      to_jurisdiction: string
      mutual: boolean
      status: string
    }>
  }>('/console/rwa/jurisdictions/trust', { jurisdiction: props.id, status: 'active', limit: 100 })
  return (
    <Page title={`Jurisdiction ${props.id}`}>
      <Pending loaded={record} />
      {record.state === 'done' ? (
        <Section title="Record">
          <Fields
            rows={[
              ['Jurisdiction', <Id value={record.data.jurisdiction_id} />],
              ['Name', record.data.name],
              ['Regulatory body', record.data.regulatory_body],
              ['Frameworks', record.data.frameworks.join(', ') || '—'],
              ['Credential types', record.data.credential_types.join(', ') || '—'],
              ['Transfer requirements', record.data.transfer_requirements.join(', ') || '—'],
              ...(record.data.external_only
                ? ([['Met only by outside issuers', record.data.external_only.join(', ') || '—']] as Array<
                    [string, string]
                  >)
                : []),
              ['Issuer DID', <Id value={record.data.issuer_did} />],
              ['Registered', <Time at={record.data.created_at} />],
              ['Updated', <Time at={record.data.updated_at} />],
            ]}
          />
        </Section>
      ) : null}
      <Section title="Active trust">
        <Pending loaded={trust} />
        {trust.state === 'done' ? (
          trust.data.trust_relations.length === 0 ? (
            <p class="empty">No active trust relation with {props.id}.</p>
          ) : (
            <ul class="relations">
              {trust.data.trust_relations.map((t) => (
                <li key={t.trust_id}>
                  <strong>{edgeName(t)}</strong> <Status value={t.status} /> <Id value={t.trust_id} />
                </li>
              ))}
            </ul>
          )
        ) : null}
      </Section>
    </Page>
  )
}
