import { href } from '../router.js'
import {
  Fields,
  Filters,
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

/** A trusted issuer as `GET /console/rwa/issuers` answers it (docs/issuers.md once the server has them). */
interface Issuer {
  issuer_id: string
  name: string
  did: string
  requirements: Record<string, string[]>
  jurisdictions: string[]
  status: string
  keys: Array<{ kid: string; first_seen_at: string; retired_at: string | null }>
  created_at: string
  valid_until: string | null
}

/** What a list shows when this server has no such endpoint (an older server): not an error. */
export function NotAvailable(props: { what: string }) {
  return (
    <div class="notice unavailable" role="status">
      <p>
        <strong>{props.what} are not available on this server.</strong>
      </p>
      <p>Its API has no such endpoint yet; a newer rwa server has it.</p>
    </div>
  )
}

export const isMissingRoute = (loaded: { state: string; problem?: { reason?: string } }) =>
  loaded.state === 'error' && loaded.problem?.reason === 'route_not_found'

export function Issuers(props: PageProps) {
  return props.id ? <IssuerDetail id={props.id} /> : <IssuerList />
}

function IssuerList() {
  const list = useGet<{ issuers: Issuer[]; total: number; next_cursor: string | null }>(
    '/console/rwa/issuers',
    listQuery(['jurisdiction', 'requirement', 'status']),
  )
  return (
    <Page
      title="Issuers"
      lead="Providers whose credentials the organization trusts, for which requirements and where."
    >
      {isMissingRoute(list) ? (
        <NotAvailable what="Trusted issuers" />
      ) : (
        <>
          <Filters
            label="Filter issuers"
            fields={[
              { name: 'jurisdiction', label: 'Jurisdiction', placeholder: 'US' },
              { name: 'requirement', label: 'Requirement', placeholder: 'kyc' },
              { name: 'status', label: 'Status', options: ['active', 'suspended', 'removed'] },
            ]}
          />
          <Pending loaded={list} />
          {list.state === 'done' ? (
            <>
              <Table
                caption="Trusted issuers"
                rows={list.data.issuers}
                rowKey={(i) => i.issuer_id}
                rowHref={(i) => href('issuers', i.issuer_id)}
                empty="No trusted issuer registered."
                columns={[
                  { title: 'Issuer', cell: (i) => <IdLink page="issuers" id={i.issuer_id} /> },
                  { title: 'Name', cell: (i) => i.name },
                  { title: 'Status', cell: (i) => <Status value={i.status} /> },
                  { title: 'Requirements', cell: (i) => Object.keys(i.requirements).join(', ') },
                  { title: 'Jurisdictions', cell: (i) => i.jurisdictions.join(', '), class: 'wide' },
                ]}
              />
              <Pager
                shown={list.data.issuers.length}
                total={list.data.total}
                nextCursor={list.data.next_cursor}
                noun="issuers"
              />
            </>
          ) : null}
        </>
      )}
    </Page>
  )
}

function IssuerDetail(props: { id: string }) {
  const record = useGet<Issuer>(`/console/rwa/issuers/${encodeURIComponent(props.id)}`)
  const i = record.state === 'done' ? record.data : undefined
  return (
    <Page title={`Issuer ${props.id}`}>
      {isMissingRoute(record) ? <NotAvailable what="Trusted issuers" /> : <Pending loaded={record} />}
      {i ? (
        <>
          <Section title="Record">
            <Fields
              rows={[
                ['Issuer', <Id value={i.issuer_id} />],
                ['Name', i.name],
                ['Status', <Status value={i.status} />],
                ['DID', <Id value={i.did} />],
                ['Jurisdictions', i.jurisdictions.join(', ')],
                ['Registered', <Time at={i.created_at} />],
                ['Valid until', <Time at={i.valid_until} />],
              ]}
            />
          </Section>
          <Section title="Trusted for">
            <Table
              caption="Requirements the issuer is trusted for"
              rows={Object.entries(i.requirements)}
              rowKey={([requirement]) => requirement}
              columns={[
                { title: 'Requirement', cell: ([requirement]) => requirement },
                { title: 'Credential types', cell: ([, types]) => types.join(', ') },
              ]}
            />
          </Section>
          <Section title="Keys">
            <Table
              caption="Keys of the issuer"
              rows={i.keys}
              rowKey={(k) => k.kid}
              empty="No Ed25519 key found in its DID document."
              columns={[
                { title: 'Key', cell: (k) => <Id value={k.kid} /> },
                { title: 'First seen', cell: (k) => <Time at={k.first_seen_at} /> },
                { title: 'Retired', cell: (k) => <Time at={k.retired_at} /> },
              ]}
            />
          </Section>
        </>
      ) : null}
    </Page>
  )
}
