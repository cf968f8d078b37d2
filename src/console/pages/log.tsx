import { useEffect, useState } from 'preact/hooks'
import { get } from '../api.js'
import { href, Link } from '../router.js'
import { useCan } from '../session.js'
import { Fields, Id, Json, Page, Pending, ProblemAlert, problemOf, Section, Table, Time } from '../ui.js'
import type { Problem } from '../api.js'
import {
  eventLeafHash,
  inclusionHolds,
  type VerifiedCheckpoint,
  verifyCheckpointInPage,
} from '../verify/checkpoint.js'
import { toBase64 } from '../verify/bytes.js'
import type { PageProps } from './index.js'

interface CheckpointAnswer {
  org_id: string
  origin: string
  tree_size: number
  root_hash: string
  checkpoint: string
  log_key: { kid: string; vkey: string }
}

interface Entry {
  event_id: string
  at: string
  action: string
  target: { type: string; id: string }
  actor: { key_id: string } | { system: string }
  log_index?: number
  [field: string]: unknown
}

type Checked =
  | { state: 'checking' }
  | { state: 'error'; problem: Problem }
  | { state: 'done'; holds: true; checkpoint: VerifiedCheckpoint; note: string; kid: string }
  | { state: 'done'; holds: false; reason: string; note: string }

/**
 * The log's checkpoint, verified here: its signature by the log key the organization's trust bundle
 * names (not the key sent beside the checkpoint), its origin that key's name.
 */
function useVerifiedCheckpoint(enabled: boolean): Checked {
  const [checked, setChecked] = useState<Checked>({ state: 'checking' })
  useEffect(() => {
    if (!enabled) return
    let live = true
    ;(async (): Promise<Checked> => {
      const [answer, bundle] = await Promise.all([
        get<CheckpointAnswer>('/console/audit/log/checkpoint'),
        get<{ log_key?: { kid: string; vkey: string } }>('/console/rwa/trust-bundle'),
      ])
      if (!bundle.log_key)
        return {
          state: 'done',
          holds: false,
          reason: 'the trust bundle names no log key',
          note: answer.checkpoint,
        }
      const verdict = await verifyCheckpointInPage(answer.checkpoint, bundle.log_key.vkey)
      if (!verdict.holds)
        return { state: 'done', holds: false, reason: verdict.reason, note: answer.checkpoint }
      return {
        state: 'done',
        holds: true,
        checkpoint: verdict.checkpoint,
        note: answer.checkpoint,
        kid: bundle.log_key.kid,
      }
    })().then(
      (result) => live && setChecked(result),
      (error) => live && setChecked({ state: 'error', problem: problemOf(error) }),
    )
    return () => {
      live = false
    }
  }, [enabled])
  return checked
}

function CheckpointVerdict(props: { checked: Checked }) {
  const { checked } = props
  if (checked.state === 'checking')
    return (
      <p class="muted" aria-live="polite">
        Verifying the checkpoint…
      </p>
    )
  if (checked.state === 'error') return <ProblemAlert problem={checked.problem} title="Could not load" />
  return (
    <div class={`verdict ${checked.holds ? 'holds' : 'fails'}`} aria-live="polite">
      <p>
        Checkpoint: <strong class="verdict-word">{checked.holds ? 'verified' : 'does not hold'}</strong>
      </p>
      <p class="muted">
        {checked.holds
          ? `Its Ed25519 signature was checked in this browser (WebCrypto) with the log key ${checked.kid} of the trust bundle.`
          : `Checked in this browser: ${checked.reason}.`}
      </p>
      {checked.holds ? (
        <Fields
          rows={[
            ['Origin', <Id value={checked.checkpoint.origin} />],
            ['Entries', checked.checkpoint.size.toLocaleString('en')],
            ['Root hash', <Id value={toBase64(checked.checkpoint.root)} />],
          ]}
        />
      ) : null}
      <details>
        <summary>The signed note</summary>
        {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region is reached by keyboard. */}
        <pre class="note" tabIndex={0}>
          {checked.note}
        </pre>
      </details>
    </div>
  )
}

export function Log(props: PageProps) {
  const can = useCan()
  const allowed = can('get', '/console/audit/log/checkpoint')
  const checked = useVerifiedCheckpoint(allowed)
  if (!allowed) {
    return (
      <Page title="Log">
        <p class="notice" role="status">
          The transparency log is for keys with the owner or auditor role; this key has neither.
        </p>
      </Page>
    )
  }
  return props.id !== undefined ? (
    <LogEntry index={Number(props.id)} checked={checked} />
  ) : (
    <LogEntries checked={checked} />
  )
}

const PAGE = 25

function LogEntries(props: { checked: Checked }) {
  const { checked } = props
  const size = checked.state === 'done' && checked.holds ? checked.checkpoint.size : undefined
  const requestedEnd = Number(new URLSearchParams(location.search).get('end') ?? Number.NaN)
  const end =
    size === undefined
      ? undefined
      : Number.isInteger(requestedEnd) && requestedEnd > 0 && requestedEnd <= size
        ? requestedEnd
        : size
  const start = end === undefined ? undefined : Math.max(0, end - PAGE)
  const [entries, setEntries] = useState<
    { state: 'loading' } | { state: 'error'; problem: Problem } | { state: 'done'; entries: Entry[] }
  >({
    state: 'loading',
  })
  useEffect(() => {
    if (start === undefined || end === undefined || end === 0) return
    let live = true
    get<{ entries: Entry[] }>('/console/audit/log/entries', { start, end }).then(
      (answer) => live && setEntries({ state: 'done', entries: [...answer.entries].reverse() }),
      (error) => live && setEntries({ state: 'error', problem: problemOf(error) }),
    )
    return () => {
      live = false
    }
  }, [start, end])
  return (
    <Page
      title="Log"
      lead="The organization’s append-only log: every audit event is a leaf of a Merkle tree whose signed checkpoint is verified here, in your browser."
    >
      <Section title="Checkpoint">
        <CheckpointVerdict checked={checked} />
      </Section>
      {size !== undefined && start !== undefined && end !== undefined ? (
        <Section title="Entries">
          {entries.state === 'loading' && end > 0 ? <p class="muted">Loading…</p> : null}
          {entries.state === 'error' ? (
            <ProblemAlert problem={entries.problem} title="Could not load" />
          ) : null}
          {entries.state === 'done' ? (
            <Table
              caption={`Log entries ${start} to ${end - 1}, newest first`}
              rows={entries.entries}
              rowKey={(e) => e.event_id}
              rowHref={(e) => href('log', e.log_index ?? 0)}
              columns={[
                {
                  title: 'Entry',
                  cell: (e) => <Link to={href('log', e.log_index ?? 0)}>#{e.log_index}</Link>,
                },
                { title: 'At', cell: (e) => <Time at={e.at} /> },
                { title: 'Action', cell: (e) => <code>{e.action}</code> },
                { title: 'Target', cell: (e) => <Id value={e.target.id} />, class: 'wide' },
              ]}
            />
          ) : null}
          <nav class="pager" aria-label="Pages of log entries">
            <span>
              Entries {start}–{Math.max(start, end - 1)} of {size}
            </span>
            {end < size ? <Link to={href('log')}>Newest entries</Link> : null}
            {start > 0 ? (
              <Link to={href('log', undefined, { end: String(start) })}>Older entries</Link>
            ) : null}
          </nav>
        </Section>
      ) : null}
    </Page>
  )
}

type Inclusion =
  | { state: 'checking' }
  | { state: 'error'; problem: Problem }
  | { state: 'done'; entry: Entry; reason: string | undefined }

function LogEntry(props: { index: number; checked: Checked }) {
  const { checked, index } = props
  const [inclusion, setInclusion] = useState<Inclusion>({ state: 'checking' })
  const checkpoint = checked.state === 'done' && checked.holds ? checked.checkpoint : undefined
  useEffect(() => {
    if (!checkpoint) return
    let live = true
    ;(async (): Promise<Inclusion> => {
      if (!(Number.isInteger(index) && index >= 0 && index < checkpoint.size)) {
        return {
          state: 'error',
          problem: {
            status: 404,
            code: 'not_found',
            detail: `The log has no entry ${index} (it holds ${checkpoint.size})`,
          },
        }
      }
      const [{ entries }, proof] = await Promise.all([
        get<{ entries: Entry[] }>('/console/audit/log/entries', { start: index, end: index + 1 }),
        get<{ proof: string[] }>('/console/audit/log/inclusion', { index, tree_size: checkpoint.size }),
      ])
      const entry = entries[0]
      if (!entry)
        return { state: 'error', problem: { status: 404, code: 'not_found', detail: `No entry ${index}` } }
      const reason = await inclusionHolds(
        index,
        checkpoint.size,
        await eventLeafHash(entry),
        proof.proof,
        checkpoint.root,
      )
      return { state: 'done', entry, reason }
    })().then(
      (result) => live && setInclusion(result),
      (error) => live && setInclusion({ state: 'error', problem: problemOf(error) }),
    )
    return () => {
      live = false
    }
  }, [checkpoint, index])
  return (
    <Page title={`Log entry ${index}`}>
      <Section title="Checkpoint">
        <CheckpointVerdict checked={checked} />
      </Section>
      <Section title="Entry">
        {inclusion.state === 'checking' ? <Pending loaded={{ state: 'loading' }} /> : null}
        {inclusion.state === 'error' ? (
          <ProblemAlert problem={inclusion.problem} title="Could not check" />
        ) : null}
        {inclusion.state === 'done' ? (
          <>
            <div class={`verdict ${inclusion.reason ? 'fails' : 'holds'}`} aria-live="polite">
              <p>
                Included in the checkpoint:{' '}
                <strong class="verdict-word">{inclusion.reason ? 'does not hold' : 'verified'}</strong>
              </p>
              <p class="muted">
                {inclusion.reason
                  ? `Checked in this browser: ${inclusion.reason}.`
                  : 'Its RFC 9162 inclusion proof leads from this event’s hash to the verified root.'}
              </p>
            </div>
            <Fields
              rows={[
                ['Event', <Id value={inclusion.entry.event_id} />],
                ['At', <Time at={inclusion.entry.at} />],
                ['Action', <code>{inclusion.entry.action}</code>],
              ]}
            />
            <Json value={inclusion.entry} />
          </>
        ) : null}
      </Section>
      <p>
        <Link to={href('log')}>All entries</Link>
      </p>
    </Page>
  )
}
