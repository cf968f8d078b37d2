import { useState } from 'preact/hooks'
import type { Holder } from '../../contract/identities.js'
import { ActionButton } from '../actions.js'
import type { Answer } from '../api.js'
import { href, Link } from '../router.js'
import {
  Fields,
  Filters,
  Id,
  IdLink,
  Details,
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
  Yes,
} from '../ui.js'
import { ApprovalNotice, isPendingApproval } from './approvals.js'
import type { PageProps } from './index.js'
import { isMissingRoute } from './issuers.js'

interface Holding {
  holder_did: string
  jurisdiction: string
  amount: number
  frozen_amount: number
  frozen: boolean
}

interface Token {
  token_id: string
  credential_id: string
  jurisdiction: string
  owner_did: string
  symbol?: string
  total_supply: number
  supply?: number
  status: string
  rules?: Record<string, unknown> | null
  created_at: string
  holdings_total?: number
  frozen_holders_total?: number
  governance_history_total?: number
}

interface HistoryEvent {
  event: string
  at: string
  details: Record<string, unknown>
}

export function Tokens(props: PageProps) {
  return props.id ? <TokenDetail id={props.id} /> : <TokenList />
}

function TokenList() {
  const list = useGet<{ tokens: Token[]; total: number; next_cursor: string | null }>(
    '/console/rwa/tokens',
    listQuery(['jurisdiction', 'status', 'owner_did']),
  )
  return (
    <Page title="Tokens">
      <Filters
        label="Filter tokens"
        fields={[
          { name: 'jurisdiction', label: 'Jurisdiction', placeholder: 'US' },
          { name: 'status', label: 'Status', options: ['active', 'paused', 'frozen'] },
          { name: 'owner_did', label: 'Owner DID', placeholder: 'did:web:…' },
        ]}
      />
      <Pending loaded={list} />
      {list.state === 'done' ? (
        <>
          <Table
            caption="Tokens"
            rows={list.data.tokens}
            rowKey={(t) => t.token_id}
            rowHref={(t) => href('tokens', t.token_id)}
            empty="No token matches."
            columns={[
              { title: 'Token', cell: (t) => <IdLink page="tokens" id={t.token_id} /> },
              { title: 'Status', cell: (t) => <Status value={t.status} /> },
              { title: 'Jurisdiction', cell: (t) => t.jurisdiction },
              { title: 'Supply', cell: (t) => (t.supply ?? t.total_supply).toLocaleString('en') },
              { title: 'Owner', cell: (t) => <Id value={t.owner_did} />, class: 'wide' },
              { title: 'Created', cell: (t) => <Time at={t.created_at} />, class: 'wide' },
            ]}
          />
          <Pager
            shown={list.data.tokens.length}
            total={list.data.total}
            nextCursor={list.data.next_cursor}
            noun="tokens"
          />
        </>
      ) : null}
    </Page>
  )
}

/** A rule's value as a person reads it. */
const ruleText = (value: unknown): string =>
  value === null || value === undefined
    ? 'not set'
    : typeof value === 'object'
      ? JSON.stringify(value)
      : String(value)

/** The rules that are set (each is a check of every evaluation), and the names of those that are not. */
function Rules(props: { rules: Record<string, unknown> }) {
  const entries = Object.entries(props.rules)
  const set = entries.filter(([, value]) => value !== null && value !== undefined)
  const unset = entries.filter(([, value]) => value === null || value === undefined).map(([name]) => name)
  return (
    <>
      {set.length > 0 ? (
        <Fields rows={set.map(([name, value]) => [name, ruleText(value)])} />
      ) : (
        <p class="empty">No transfer rule is set.</p>
      )}
      {set.length > 0 && unset.length > 0 ? <p class="muted">Not set: {unset.join(', ')}.</p> : null}
    </>
  )
}

/**
 * Holdings grouped by investor (`GET .../holders`), on a server that has identities; nothing at all on one
 * that has not (its holdings above say the same per DID).
 */
function HoldersByIdentity(props: { path: string; tokenId: string }) {
  const cursor = new URLSearchParams(location.search).get('holders_cursor') ?? undefined
  const holders = useGet<{ holders: Holder[]; total: number; next_cursor: string | null }>(
    `${props.path}/holders`,
    {
      limit: 25,
      cursor,
    },
  )
  if (isMissingRoute(holders)) return null
  return (
    <Section title="Holders by identity">
      <Pending loaded={holders} />
      {holders.state === 'done' ? (
        <>
          <Table
            caption="Holders by identity"
            rows={holders.data.holders}
            rowKey={(h) => h.identity_id ?? h.dids[0]?.holder_did ?? ''}
            empty="Nobody holds this token."
            columns={[
              {
                title: 'Identity',
                cell: (h) =>
                  h.identity_id ? (
                    // The identity's page, showing its holdings of this token.
                    <Link to={href('identities', h.identity_id, { token: props.tokenId })} class="id-link">
                      <code class="id">{h.identity_id}</code>
                    </Link>
                  ) : (
                    <span class="muted">none</span>
                  ),
              },
              { title: 'Country', cell: (h) => h.country ?? '—' },
              { title: 'Category', cell: (h) => h.category ?? '—' },
              { title: 'Total', cell: (h) => h.total.toLocaleString('en') },
              {
                title: 'DIDs',
                cell: (h) => (
                  <ul class="details">
                    {h.dids.map((d) => (
                      <li key={d.holder_did}>
                        <Id value={d.holder_did} />: {d.amount.toLocaleString('en')}
                      </li>
                    ))}
                  </ul>
                ),
              },
            ]}
          />
          <Pager
            shown={holders.data.holders.length}
            total={holders.data.total}
            nextCursor={holders.data.next_cursor}
            cursorParam="holders_cursor"
            noun="holders"
          />
        </>
      ) : null}
    </Section>
  )
}

function TokenDetail(props: { id: string }) {
  const path = `/console/rwa/tokens/${encodeURIComponent(props.id)}`
  const url = new URLSearchParams(location.search)
  const token = useGet<Token>(path)
  const holdings = useGet<{ holdings: Holding[]; total: number; next_cursor: string | null }>(
    `${path}/holdings`,
    {
      limit: 25,
      cursor: url.get('holdings_cursor') ?? undefined,
    },
  )
  const frozen = useGet<{ frozen_holders: string[]; total: number; next_cursor: string | null }>(
    `${path}/frozen-holders`,
    {
      limit: 25,
      cursor: url.get('frozen_cursor') ?? undefined,
    },
  )
  const history = useGet<{ governance_history: HistoryEvent[]; total: number; next_cursor: string | null }>(
    `${path}/history`,
    { limit: 25, cursor: url.get('history_cursor') ?? undefined },
  )
  const [done, setDone] = useState<{ what: string; answer: Answer<unknown> }>()
  const reloadAll = (what: string) => (answer: Answer<unknown>) => {
    setDone({ what, answer })
    token.reload()
    holdings.reload()
    frozen.reload()
    history.reload()
  }
  const t = token.state === 'done' ? token.data : undefined
  return (
    <Page title={`Token ${props.id}`}>
      <Pending loaded={token} />
      {done ? (
        isPendingApproval(done.answer) ? (
          <ApprovalNotice answer={done.answer} />
        ) : (
          <Notice>{done.what}</Notice>
        )
      ) : null}
      {t ? (
        <>
          <Section
            title="Record"
            actions={
              <>
                {t.status === 'paused' ? (
                  <ActionButton
                    label="Unpause"
                    operation={{ method: 'post', path: '/console/rwa/tokens/{id}/unpause' }}
                    request={(v) => ({ path: `${path}/unpause`, body: v.reason ? { reason: v.reason } : {} })}
                    title={`Unpause token ${props.id}`}
                    description="Transfers are evaluated again as usual."
                    fields={[{ name: 'reason', label: 'Reason' }]}
                    submitLabel="Unpause now"
                    onDone={reloadAll('Token unpaused.')}
                  />
                ) : (
                  <ActionButton
                    label="Pause"
                    operation={{ method: 'post', path: '/console/rwa/tokens/{id}/pause' }}
                    request={(v) => ({ path: `${path}/pause`, body: v.reason ? { reason: v.reason } : {} })}
                    title={`Pause token ${props.id}`}
                    description="A paused token refuses every transfer (check token_active) until it is unpaused."
                    fields={[{ name: 'reason', label: 'Reason' }]}
                    submitLabel="Pause now"
                    danger
                    onDone={reloadAll('Token paused.')}
                  />
                )}
                <ActionButton
                  label="Forced transfer"
                  operation={{ method: 'post', path: '/console/rwa/tokens/{id}/forced-transfer' }}
                  request={(v) => ({
                    path: `${path}/forced-transfer`,
                    body: {
                      from_did: v.from_did,
                      from_jurisdiction: v.from_jurisdiction,
                      to_did: v.to_did,
                      to_jurisdiction: v.to_jurisdiction,
                      amount: Number(v.amount),
                      reason: v.reason,
                    },
                  })}
                  title={`Forced transfer of ${props.id}`}
                  description="An agent's transfer: it bypasses requirements, rules, freezes and pause; the recipient still needs a recognised kyc. Under a four-eyes policy it waits for a second key."
                  fields={[
                    { name: 'from_did', label: 'From DID', required: true },
                    { name: 'from_jurisdiction', label: 'From jurisdiction', required: true },
                    { name: 'to_did', label: 'To DID', required: true },
                    { name: 'to_jurisdiction', label: 'To jurisdiction', required: true },
                    { name: 'amount', label: 'Amount', type: 'number', required: true },
                    { name: 'reason', label: 'Reason (the authority for it)', required: true },
                  ]}
                  submitLabel="Request forced transfer"
                  danger
                  onDone={reloadAll('Forced transfer done.')}
                />
              </>
            }
          >
            <Fields
              rows={[
                ['Token', <Id value={t.token_id} />],
                ['Status', <Status value={t.status} />],
                ['Symbol', t.symbol ?? null],
                ['Jurisdiction', <IdLink page="jurisdictions" id={t.jurisdiction} />],
                ['Credential', <IdLink page="credentials" id={t.credential_id} />],
                ['Owner DID', <Id value={t.owner_did} />],
                ['Supply', (t.supply ?? t.total_supply).toLocaleString('en')],
                ['Created', <Time at={t.created_at} />],
              ]}
            />
          </Section>
          <Section title="Rules">
            <Rules rules={t.rules ?? {}} />
          </Section>
        </>
      ) : null}
      <Section title="Holdings">
        <Pending loaded={holdings} />
        {holdings.state === 'done' ? (
          <>
            <Table
              caption="Holdings"
              rows={holdings.data.holdings}
              rowKey={(h) => `${h.holder_did} ${h.jurisdiction}`}
              empty="Nobody holds this token."
              columns={[
                { title: 'Holder', cell: (h) => <Id value={h.holder_did} /> },
                { title: 'Jurisdiction', cell: (h) => h.jurisdiction },
                { title: 'Amount', cell: (h) => h.amount.toLocaleString('en') },
                { title: 'Frozen units', cell: (h) => h.frozen_amount.toLocaleString('en') },
                { title: 'Holder frozen', cell: (h) => <Yes value={h.frozen} yes="frozen" no="no" /> },
              ]}
            />
            <Pager
              shown={holdings.data.holdings.length}
              total={holdings.data.total}
              nextCursor={holdings.data.next_cursor}
              cursorParam="holdings_cursor"
              noun="holdings"
            />
          </>
        ) : null}
      </Section>
      <HoldersByIdentity path={path} tokenId={props.id} />
      <Section title="Frozen holders">
        <Pending loaded={frozen} />
        {frozen.state === 'done' ? (
          frozen.data.frozen_holders.length === 0 ? (
            <p class="empty">No holder is frozen.</p>
          ) : (
            <>
              <ul class="relations">
                {frozen.data.frozen_holders.map((did) => (
                  <li key={did}>
                    <Id value={did} />
                  </li>
                ))}
              </ul>
              <Pager
                shown={frozen.data.frozen_holders.length}
                total={frozen.data.total}
                nextCursor={frozen.data.next_cursor}
                cursorParam="frozen_cursor"
                noun="frozen holders"
              />
            </>
          )
        ) : null}
      </Section>
      <Section title="History">
        <Pending loaded={history} />
        {history.state === 'done' ? (
          <>
            <Table
              caption="Governance history, oldest first"
              rows={history.data.governance_history}
              rowKey={(e) => `${e.at} ${e.event} ${JSON.stringify(e.details)}`}
              columns={[
                { title: 'At', cell: (e) => <Time at={e.at} /> },
                { title: 'Event', cell: (e) => e.event },
                {
                  title: 'Details',
                  cell: (e) => (
                    <>
                      {typeof e.details.transfer_id === 'string' ? (
                        <IdLink page="transfers" id={e.details.transfer_id} />
                      ) : null}
                      <Details value={e.details} />
                    </>
                  ),
                },
              ]}
            />
            <Pager
              shown={history.data.governance_history.length}
              total={history.data.total}
              nextCursor={history.data.next_cursor}
              cursorParam="history_cursor"
              noun="events"
            />
          </>
        ) : null}
      </Section>
    </Page>
  )
}
