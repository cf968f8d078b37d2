import { useEffect, useState } from 'preact/hooks'
import type { Proof, TrustBundle } from '../../contract/rwa.js'
import { get } from '../api.js'
import { href, Link } from '../router.js'
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
import { transferDiffers, type Verdict, verifyProofInPage } from '../verify/proof.js'
import type { PageProps } from './index.js'

interface Check {
  requirement: string
  jurisdiction: string
  satisfied: boolean
  evidence: string | null
  reason: string
}

interface Transfer {
  transfer_id: string
  status: string
  proof_id: string
  token_id: string
  from_jurisdiction: string
  to_jurisdiction: string
  sender_did: string
  recipient_did: string
  amount: number
  created_at: string
  compliance_details: {
    source_requirements: string[]
    target_requirements: string[]
    all_satisfied: boolean
    checks?: Check[]
  }
  reason?: string | null
  log_index?: number | null
  proof?: Proof
}

export function Transfers(props: PageProps) {
  return props.id ? <TransferDetail id={props.id} /> : <TransferList />
}

function TransferList() {
  const list = useGet<{ transfers: Transfer[]; total: number; next_cursor: string | null }>(
    '/console/rwa/transfers',
    listQuery(['status', 'token_id', 'jurisdiction']),
  )
  return (
    <Page
      title="Transfers"
      lead="Every decision, newest first: open one for each check with its reason and its proof."
    >
      <Filters
        label="Filter transfers"
        fields={[
          { name: 'status', label: 'Decision', options: ['approved', 'rejected', 'forced'] },
          { name: 'token_id', label: 'Token', placeholder: 'tok_…' },
          { name: 'jurisdiction', label: 'Jurisdiction', placeholder: 'SG' },
        ]}
      />
      <Pending loaded={list} />
      {list.state === 'done' ? (
        <>
          <Table
            caption="Transfers"
            rows={list.data.transfers}
            rowKey={(t) => t.transfer_id}
            rowHref={(t) => href('transfers', t.transfer_id)}
            empty="No transfer matches."
            columns={[
              { title: 'Transfer', cell: (t) => <IdLink page="transfers" id={t.transfer_id} /> },
              { title: 'Decision', cell: (t) => <Status value={t.status} /> },
              { title: 'Route', cell: (t) => `${t.from_jurisdiction} → ${t.to_jurisdiction}` },
              { title: 'Amount', cell: (t) => t.amount.toLocaleString('en') },
              { title: 'Token', cell: (t) => <Id value={t.token_id} />, class: 'wide' },
              { title: 'At', cell: (t) => <Time at={t.created_at} />, class: 'wide' },
            ]}
          />
          <Pager
            shown={list.data.transfers.length}
            total={list.data.total}
            nextCursor={list.data.next_cursor}
            noun="transfers"
          />
        </>
      ) : null}
    </Page>
  )
}

/** The page of the record an evidence id names, by its type prefix. */
const EVIDENCE_PAGES: Array<[string, string]> = [
  ['att_', 'attestations'],
  ['cred_', 'credentials'],
  ['tok_', 'tokens'],
  ['tx_', 'transfers'],
  ['idn_', 'identities'],
]

function Evidence(props: { value: string | null }) {
  const { value } = props
  if (!value) return <span class="muted">—</span>
  const page = EVIDENCE_PAGES.find(([prefix]) => value.startsWith(prefix))?.[1]
  return page ? <IdLink page={page} id={value} /> : <Id value={value} />
}

type ProofState = { state: 'checking' } | { state: 'done'; verdict: Verdict }

/** The proof checked here, in the browser, against the trust bundle: never taken on the server's word. */
function useProofVerdict(transfer: Transfer | undefined): ProofState {
  const [state, setState] = useState<ProofState>({ state: 'checking' })
  useEffect(() => {
    if (!transfer) return
    let live = true
    const check = async (): Promise<Verdict> => {
      if (!transfer.proof) return { holds: false, reason: 'the transfer carries no proof' }
      const bundle = await get<TrustBundle>('/console/rwa/trust-bundle')
      const verdict = await verifyProofInPage(transfer.proof, bundle)
      if (!verdict.holds) return verdict
      const differs = transferDiffers(transfer as unknown as Record<string, unknown>, transfer.proof)
      return differs ? { holds: false, reason: differs } : verdict
    }
    check().then(
      (verdict) => live && setState({ state: 'done', verdict }),
      (error) =>
        live &&
        setState({
          state: 'done',
          verdict: { holds: false, reason: `it could not be checked: ${(error as Error).message}` },
        }),
    )
    return () => {
      live = false
    }
  }, [transfer])
  return state
}

function TransferDetail(props: { id: string }) {
  const record = useGet<Transfer>(`/console/rwa/transfers/${encodeURIComponent(props.id)}`)
  const t = record.state === 'done' ? record.data : undefined
  const proof = useProofVerdict(t)
  const checks = t?.compliance_details.checks ?? []
  const failing = checks.filter((c) => !c.satisfied)
  return (
    <Page title={`Transfer ${props.id}`}>
      <Pending loaded={record} />
      {t ? (
        <>
          <Section title="Decision">
            <p class={`decision ${t.status}`}>
              <Status value={t.status} />{' '}
              {t.status === 'rejected'
                ? `${failing.length} of ${checks.length} checks not met`
                : t.status === 'forced'
                  ? 'moved by an agent’s authority, past the requirements'
                  : `all ${checks.length} checks met`}
            </p>
            {failing.length > 0 ? (
              <ul class="reasons">
                {failing.map((c) => (
                  <li key={`${c.requirement} ${c.jurisdiction}`}>
                    <strong>{c.requirement}</strong> ({c.jurisdiction}): {c.reason}
                  </li>
                ))}
              </ul>
            ) : null}
            <Fields
              rows={[
                ['Transfer', <Id value={t.transfer_id} />],
                ['Token', <IdLink page="tokens" id={t.token_id} />],
                [
                  'From',
                  <>
                    <Id value={t.sender_did} /> in {t.from_jurisdiction}
                  </>,
                ],
                [
                  'To',
                  <>
                    <Id value={t.recipient_did} /> in {t.to_jurisdiction}
                  </>,
                ],
                ['Amount', t.amount.toLocaleString('en')],
                ['At', <Time at={t.created_at} />],
                ['Agent’s reason', t.reason ?? null],
                ['Source requirements', t.compliance_details.source_requirements.join(', ') || '—'],
                ['Target requirements', t.compliance_details.target_requirements.join(', ') || '—'],
                [
                  'Log entry',
                  typeof t.log_index === 'number' ? (
                    <Link to={href('log', t.log_index)}>#{t.log_index}</Link>
                  ) : null,
                ],
              ]}
            />
          </Section>
          <Section title="Checks">
            <Table
              caption="Every check of the evaluation, with its reason and evidence"
              rows={checks}
              rowKey={(c) => `${c.requirement} ${c.jurisdiction} ${c.evidence ?? ''}`}
              empty="A forced transfer is not evaluated."
              columns={[
                { title: 'Check', cell: (c) => <code>{c.requirement}</code> },
                { title: 'Jurisdiction', cell: (c) => c.jurisdiction },
                {
                  title: 'Result',
                  cell: (c) =>
                    c.satisfied ? <span class="pill ok">met</span> : <span class="pill bad">not met</span>,
                },
                { title: 'Reason', cell: (c) => c.reason },
                { title: 'Evidence', cell: (c) => <Evidence value={c.evidence} /> },
              ]}
            />
          </Section>
          <Section title="Proof">
            <ProofVerdict proofId={t.proof_id} state={proof} />
          </Section>
        </>
      ) : null}
    </Page>
  )
}

function ProofVerdict(props: { proofId: string; state: ProofState }) {
  if (props.state.state === 'checking') {
    return (
      <p aria-live="polite" class="muted">
        Checking proof <Id value={props.proofId} /> against the trust bundle…
      </p>
    )
  }
  const { verdict } = props.state
  return (
    <div class={`verdict ${verdict.holds ? 'holds' : 'fails'}`} aria-live="polite">
      <p>
        Proof <Id value={props.proofId} />:{' '}
        <strong class="verdict-word">{verdict.holds ? 'verified' : 'does not hold'}</strong>
      </p>
      <p class="muted">
        {verdict.holds
          ? `Checked in this browser with WebCrypto (Ed25519): ${verdict.notes.join('; ')}; the transfer shown is the one it signs.`
          : `Checked in this browser with WebCrypto (Ed25519): ${verdict.reason}.`}
      </p>
    </div>
  )
}
