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
  Table,
  Time,
  useGet,
} from '../ui.js'
import type { PageProps } from './index.js'
import { isMissingRoute, NotAvailable } from './issuers.js'

/** An investor's identity as `GET /console/rwa/identities` answers it. */
interface Identity {
  identity_id: string
  dids: string[]
  country: string
  category: string | null
  created_at: string
  updated_at: string
}

const CATEGORIES = ['retail', 'professional', 'accredited', 'qualified', 'institutional'] as const

export function Identities(props: PageProps) {
  return props.id ? <IdentityDetail id={props.id} /> : <IdentityList />
}

function IdentityList() {
  const list = useGet<{ identities: Identity[]; total: number; next_cursor: string | null }>(
    '/console/rwa/identities',
    listQuery(['country', 'category', 'did']),
  )
  return (
    <Page
      title="Identities"
      lead="Investors: who holds, from which country, in which category, across their DIDs."
    >
      {isMissingRoute(list) ? (
        <NotAvailable what="Identities" />
      ) : (
        <>
          <Filters
            label="Filter identities"
            fields={[
              { name: 'country', label: 'Country', placeholder: 'US' },
              { name: 'category', label: 'Category', options: CATEGORIES },
              { name: 'did', label: 'DID', placeholder: 'did:web:…' },
            ]}
          />
          <Pending loaded={list} />
          {list.state === 'done' ? (
            <>
              <Table
                caption="Identities"
                rows={list.data.identities}
                rowKey={(i) => i.identity_id}
                rowHref={(i) => href('identities', i.identity_id)}
                empty="No identity matches."
                columns={[
                  { title: 'Identity', cell: (i) => <IdLink page="identities" id={i.identity_id} /> },
                  { title: 'Country', cell: (i) => i.country },
                  { title: 'Category', cell: (i) => i.category ?? '—' },
                  { title: 'DIDs', cell: (i) => i.dids.length },
                  { title: 'Created', cell: (i) => <Time at={i.created_at} />, class: 'wide' },
                ]}
              />
              <Pager
                shown={list.data.identities.length}
                total={list.data.total}
                nextCursor={list.data.next_cursor}
                noun="identities"
              />
            </>
          ) : null}
        </>
      )}
    </Page>
  )
}

function IdentityDetail(props: { id: string }) {
  const record = useGet<Identity>(`/console/rwa/identities/${encodeURIComponent(props.id)}`)
  const i = record.state === 'done' ? record.data : undefined
  return (
    <Page title={`Identity ${props.id}`}>
      {isMissingRoute(record) ? <NotAvailable what="Identities" /> : <Pending loaded={record} />}
      {i ? (
        <>
          <Section title="Record">
            <Fields
              rows={[
                ['Identity', <Id value={i.identity_id} />],
                ['Country', i.country],
                ['Category', i.category ?? '—'],
                ['Created', <Time at={i.created_at} />],
                ['Updated', <Time at={i.updated_at} />],
              ]}
            />
          </Section>
          <Section title="DIDs">
            <ul class="relations">
              {i.dids.map((did) => (
                <li key={did}>
                  <Id value={did} />
                </li>
              ))}
            </ul>
          </Section>
        </>
      ) : null}
    </Page>
  )
}
