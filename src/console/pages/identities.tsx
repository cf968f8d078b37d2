import { useEffect, useState } from 'preact/hooks'
import type { Identity } from '../../contract/identities.js'
import { IDENTITY_CATEGORIES } from '../../contract/investor-categories.js'
import type { Holding } from '../../contract/rwa.js'
import { ActionButton, type Values } from '../actions.js'
import { get } from '../api.js'
import { href, Link } from '../router.js'
import { useCan } from '../session.js'
import {
  Fields,
  Filters,
  Id,
  IdLink,
  type Loaded,
  listQuery,
  Notice,
  Page,
  Pager,
  Pending,
  problemOf,
  Section,
  Table,
  Time,
  useGet,
  Yes,
} from '../ui.js'
import type { PageProps } from './index.js'
import { isMissingRoute, NotAvailable } from './issuers.js'

/*
 * Investors (docs/identities.md): each identity's country, category and DIDs; an identity's holdings of a
 * token, DID by DID; and, for a key that may (`issuer`, `owner`), creating one, changing its country or
 * category, adding and removing its DIDs.
 */

const BASE = '/console/rwa/identities'
/** The category select's choice for "no category" (the API's `null`). */
const NO_CATEGORY = 'none'
const CATEGORY_CHOICES = [NO_CATEGORY, ...IDENTITY_CATEGORIES] as const

/** DIDs typed in one field, separated by spaces, commas or `;` (as `rwa identities import` reads them). */
const didsOf = (text: string | string[] | undefined): string[] =>
  String(text ?? '')
    .split(/[\s,;]+/)
    .filter((did) => did !== '')

export function Identities(props: PageProps) {
  return props.id ? <IdentityDetail id={props.id} /> : <IdentityList />
}

function IdentityList() {
  const list = useGet<{ identities: Identity[]; total: number; next_cursor: string | null }>(
    BASE,
    listQuery(['country', 'category', 'did']),
  )
  const [created, setCreated] = useState<Identity>()
  return (
    <Page
      title="Identities"
      lead="Investors: who holds, from which country, in which category, across their DIDs."
    >
      {isMissingRoute(list) ? (
        <NotAvailable what="Identities" />
      ) : (
        <>
          <div class="toolbar">
            <ActionButton
              label="Create identity"
              operation={{ method: 'post', path: BASE }}
              request={(v) => ({
                path: BASE,
                body: {
                  ...(v.identity_id ? { identity_id: v.identity_id } : {}),
                  dids: didsOf(v.dids),
                  country: v.country,
                  ...(v.category && v.category !== NO_CATEGORY ? { category: v.category } : {}),
                },
              })}
              title="Create an identity"
              description="One investor: its DIDs, its country and its category. A DID already in another identity is refused."
              fields={[
                {
                  name: 'dids',
                  label: 'DIDs',
                  required: true,
                  hint: 'One or more, separated by spaces, e.g. did:web:acme:alice did:web:acme:alice-cold',
                },
                {
                  name: 'country',
                  label: 'Country',
                  required: true,
                  hint: 'An assigned ISO 3166-1 alpha-2 code, e.g. US (XK for Kosovo)',
                },
                { name: 'category', label: 'Category', options: CATEGORY_CHOICES, defaultValue: NO_CATEGORY },
                {
                  name: 'identity_id',
                  label: 'Identity id (optional)',
                  hint: 'Left empty, the server makes an idn_… id',
                },
              ]}
              submitLabel="Create"
              onDone={(answer) => {
                setCreated(answer.body as Identity)
                list.reload()
              }}
            />
          </div>
          {created ? (
            <Notice>
              Identity <IdLink page="identities" id={created.identity_id} /> created ({created.country},{' '}
              {created.category ?? 'no category'}).
            </Notice>
          ) : null}
          <Filters
            label="Filter identities"
            fields={[
              { name: 'country', label: 'Country', placeholder: 'US' },
              { name: 'category', label: 'Category', options: IDENTITY_CATEGORIES },
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
                  { title: 'DIDs', cell: (i) => <DidSummary dids={i.dids} /> },
                  { title: 'Updated', cell: (i) => <Time at={i.updated_at} />, class: 'wide' },
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

/** An identity's first DID whole, and how many more it has. */
function DidSummary(props: { dids: string[] }) {
  const [first, ...rest] = props.dids
  return (
    <>
      <Id value={first} />
      {rest.length > 0 ? <span class="muted"> and {rest.length} more</span> : null}
    </>
  )
}

function IdentityDetail(props: { id: string }) {
  const path = `${BASE}/${encodeURIComponent(props.id)}`
  const record = useGet<Identity>(path)
  const mayRemove = useCan()('post', `${BASE}/{id}/dids`)
  const [changed, setChanged] = useState<string>()
  const i = record.state === 'done' ? record.data : undefined
  const done = (message: string) => () => {
    setChanged(message)
    record.reload()
  }
  /** The PATCH body: only what the dialog changed (nothing changed is the API's 400, shown as such). */
  const update = (v: Values) => {
    const body: { country?: string; category?: string | null } = {}
    if (i && v.country !== i.country) body.country = String(v.country)
    const category = v.category === NO_CATEGORY ? null : String(v.category)
    if (i && category !== i.category) body.category = category
    return { path, body }
  }
  return (
    <Page title={`Identity ${props.id}`}>
      {isMissingRoute(record) ? <NotAvailable what="Identities" /> : <Pending loaded={record} />}
      {changed ? <Notice>{changed}</Notice> : null}
      {i ? (
        <>
          <Section
            title="Record"
            actions={
              <ActionButton
                label="Change country or category"
                operation={{ method: 'patch', path: `${BASE}/{id}` }}
                request={update}
                title={`Change identity ${props.id}`}
                description="The token rules that read identities see the new country and category from the next transfer on; holdings already made stay."
                fields={[
                  { name: 'country', label: 'Country', required: true, defaultValue: i.country },
                  {
                    name: 'category',
                    label: 'Category',
                    options: CATEGORY_CHOICES,
                    defaultValue: i.category ?? NO_CATEGORY,
                  },
                ]}
                submitLabel="Save"
                onDone={done('Identity updated.')}
              />
            }
          >
            <Fields
              rows={[
                ['Identity', <Id value={i.identity_id} />],
                ['Country', i.country],
                ['Category', i.category ?? '—'],
                ['DIDs', i.dids.length],
                ['Created', <Time at={i.created_at} />],
                ['Updated', <Time at={i.updated_at} />],
              ]}
            />
          </Section>
          <Section
            title="DIDs"
            actions={
              <ActionButton
                label="Add DIDs"
                operation={{ method: 'post', path: `${BASE}/{id}/dids` }}
                request={(v) => ({ path: `${path}/dids`, body: { add: didsOf(v.dids) } })}
                title={`Add DIDs to identity ${props.id}`}
                description="Attestations about any DID of an identity count for all of them. A DID already in another identity is refused."
                fields={[
                  {
                    name: 'dids',
                    label: 'DIDs to add',
                    required: true,
                    hint: 'One or more, separated by spaces',
                  },
                ]}
                submitLabel="Add"
                onDone={done('DIDs added.')}
              />
            }
          >
            <Table
              caption={`DIDs of identity ${props.id}`}
              rows={i.dids}
              rowKey={(did) => did}
              columns={[
                { title: 'DID', cell: (did) => <Id value={did} /> },
                {
                  title: 'Records',
                  cell: (did) => (
                    <span class="row-actions">
                      <Link to={href('attestations', undefined, { subject_did: did })}>Attestations</Link>
                      <Link to={href('credentials', undefined, { owner_did: did })}>Credentials</Link>
                    </span>
                  ),
                },
                // An identity keeps at least one DID: its last one has no Remove (nor a key that may not).
                ...(mayRemove && i.dids.length > 1
                  ? [
                      {
                        title: 'Actions',
                        cell: (did: string) => (
                          <ActionButton
                            label="Remove"
                            operation={{ method: 'post', path: `${BASE}/{id}/dids` }}
                            request={() => ({ path: `${path}/dids`, body: { remove: [did] } })}
                            title={`Remove a DID from identity ${props.id}`}
                            description={
                              <p>
                                <Id value={did} /> leaves the identity: its attestations count for it alone
                                again, the identity's no longer count for it, and it is free for another
                                identity. What it holds stays its own.
                              </p>
                            }
                            submitLabel="Remove DID"
                            danger
                            onDone={done(`DID ${did} removed.`)}
                          />
                        ),
                      },
                    ]
                  : []),
              ]}
            />
          </Section>
          <IdentityHoldings identity={i} />
        </>
      ) : null}
    </Page>
  )
}

interface TokenSummary {
  token_id: string
  symbol?: string
}

/**
 * What an identity holds of one token, DID by DID (each DID's holdings, `GET .../holdings?holder_did=`):
 * the token is chosen in the URL (`?token=`), as the token's page links here.
 */
function IdentityHoldings(props: { identity: Identity }) {
  const token = new URLSearchParams(location.search).get('token') ?? ''
  const tokens = useGet<{ tokens: TokenSummary[]; total: number }>('/console/rwa/tokens', { limit: 100 })
  const holdings = useHoldingsOf(token, props.identity.dids)
  const total = holdings.state === 'done' ? holdings.data.holdings.reduce((sum, h) => sum + h.amount, 0) : 0
  return (
    <Section title="Holdings">
      <Filters
        label="Holdings of a token"
        submit="Show holdings"
        fields={[
          {
            name: 'token',
            label: 'Token',
            placeholder: 'tok_…',
            list: tokens.state === 'done' ? tokens.data.tokens.map((t) => t.token_id) : [],
          },
        ]}
      />
      {token === '' ? (
        <p class="empty">Choose a token to see what this identity's DIDs hold of it.</p>
      ) : (
        <>
          <Pending loaded={holdings} />
          {holdings.state === 'done' ? (
            <>
              <p>
                Of token <IdLink page="tokens" id={token} />: {total.toLocaleString('en')} units over{' '}
                {new Set(holdings.data.holdings.map((h) => h.holder_did)).size} of its{' '}
                {props.identity.dids.length} DIDs.
              </p>
              <Table
                caption={`Holdings of token ${token}`}
                rows={holdings.data.holdings}
                rowKey={(h) => `${h.holder_did} ${h.jurisdiction}`}
                empty="No DID of this identity holds this token."
                columns={[
                  { title: 'Holder', cell: (h) => <Id value={h.holder_did} /> },
                  { title: 'Jurisdiction', cell: (h) => h.jurisdiction },
                  { title: 'Amount', cell: (h) => h.amount.toLocaleString('en') },
                  { title: 'Frozen units', cell: (h) => h.frozen_amount.toLocaleString('en') },
                  { title: 'Holder frozen', cell: (h) => <Yes value={h.frozen} yes="frozen" no="no" /> },
                ]}
              />
              {holdings.data.more ? (
                <p class="muted">
                  A DID holds in more jurisdictions than shown: the token's page lists every holding.
                </p>
              ) : null}
            </>
          ) : null}
        </>
      )}
    </Section>
  )
}

/** The largest page of a list the API gives. */
const PAGE = 100

/** Each DID's holdings of `token`, one request per DID (a DID holds once per jurisdiction). */
function useHoldingsOf(token: string, dids: string[]): Loaded<{ holdings: Holding[]; more: boolean }> {
  const [loaded, setLoaded] = useState<Loaded<{ holdings: Holding[]; more: boolean }>>({ state: 'loading' })
  const key = `${token} ${dids.join(' ')}`
  useEffect(() => {
    if (token === '') return
    let live = true
    setLoaded({ state: 'loading' })
    const path = `/console/rwa/tokens/${encodeURIComponent(token)}/holdings`
    Promise.all(
      dids.map((did) =>
        get<{ holdings: Holding[]; next_cursor: string | null }>(path, { holder_did: did, limit: PAGE }),
      ),
    ).then(
      (pages) =>
        live &&
        setLoaded({
          state: 'done',
          data: {
            holdings: pages.flatMap((p) => p.holdings),
            more: pages.some((p) => p.next_cursor !== null),
          },
        }),
      (error) => live && setLoaded({ state: 'error', problem: problemOf(error) }),
    )
    return () => {
      live = false
    }
  }, [key])
  return loaded
}
