import { useState } from 'preact/hooks'
import { ActionButton } from '../actions.js'
import type { Answer } from '../api.js'
import { useSession } from '../session.js'
import { Id, Notice, Page, Pending, Status, Table, Time, useGet } from '../ui.js'

interface KeyRecord {
  key_id: string
  key_prefix: string
  name: string
  created_at: string
  last_used_at: string | null
  revoked: boolean
  revoked_reason: string | null
  roles: string[]
  expires_at: string | null
}

const ROLES = ['owner', 'issuer', 'agent', 'transfers', 'auditor'] as const

/** A raw key, shown once, right after it was made: the page keeps it nowhere. */
function NewKey(props: { answer: Answer<unknown> }) {
  const key = props.answer.body as { api_key?: string | null; key_id: string; name: string }
  return (
    <Notice>
      <p>
        Key <strong>{key.name}</strong> <Id value={key.key_id} /> is ready. Store it now: it is shown only
        once, and this page keeps no copy of it.
      </p>
      {key.api_key ? (
        <p>
          <code class="secret">{key.api_key}</code>
        </p>
      ) : null}
    </Notice>
  )
}

export function Keys() {
  const session = useSession()
  const list = useGet<{ keys: KeyRecord[]; total: number }>('/console/billing/keys')
  const [made, setMade] = useState<Answer<unknown>>()
  const [revoked, setRevoked] = useState<string>()
  const done = (answer: Answer<unknown>) => {
    setMade(answer)
    setRevoked(undefined)
    list.reload()
  }
  return (
    <Page
      title="Keys"
      lead="The organization’s API keys: each acts with its roles; a revoked key ends its console sessions too."
    >
      <div class="toolbar">
        <ActionButton
          label="Create key"
          operation={{ method: 'post', path: '/console/billing/keys' }}
          request={(v) => ({
            path: '/console/billing/keys',
            body: {
              name: v.name,
              roles: (v.roles as string[]).length > 0 ? v.roles : ['auditor'],
              ...(v.expires_at ? { expires_at: new Date(`${v.expires_at}Z`).toISOString() } : {}),
            },
          })}
          title="Create an API key"
          description="A key never has a role its maker lacks. Its raw value is shown once, here."
          fields={[
            { name: 'name', label: 'Name', required: true },
            { name: 'roles', label: 'Roles', type: 'checkboxes', options: ROLES, defaultValue: 'auditor' },
            { name: 'expires_at', label: 'Expires at (UTC, optional)', type: 'datetime-local' },
          ]}
          submitLabel="Create"
          onDone={done}
        />
      </div>
      {made ? <NewKey answer={made} /> : null}
      {revoked ? <Notice>Key {revoked} revoked: it and its console sessions no longer work.</Notice> : null}
      <Pending loaded={list} />
      {list.state === 'done' ? (
        <Table
          caption="API keys"
          rows={list.data.keys}
          rowKey={(k) => k.key_id}
          columns={[
            {
              title: 'Key',
              cell: (k) => (
                <>
                  <strong>{k.name}</strong>
                  <br />
                  <Id value={k.key_id} />
                  {k.key_id === session.key_id ? <span class="muted"> (this session’s)</span> : null}
                </>
              ),
            },
            { title: 'Prefix', cell: (k) => <code>{k.key_prefix}</code>, class: 'wide' },
            { title: 'Roles', cell: (k) => k.roles.join(', ') },
            {
              title: 'Status',
              cell: (k) => (
                <Status
                  value={k.revoked ? (k.revoked_reason === 'rerolled' ? 'rerolled' : 'revoked') : 'active'}
                />
              ),
            },
            { title: 'Last used', cell: (k) => <Time at={k.last_used_at} />, class: 'wide' },
            { title: 'Expires', cell: (k) => <Time at={k.expires_at} />, class: 'wide' },
            {
              title: 'Actions',
              cell: (k) =>
                k.revoked ? null : (
                  <span class="row-actions">
                    <ActionButton
                      label="Reroll"
                      operation={{ method: 'post', path: '/console/billing/keys/{key_id}/reroll' }}
                      request={(v) => ({
                        path: `/console/billing/keys/${encodeURIComponent(k.key_id)}/reroll`,
                        body: { overlap_seconds: Number(v.overlap_seconds || 0) },
                      })}
                      title={`Reroll key ${k.name}`}
                      description="A new key with the same name, roles and expiry; the old one works until the overlap ends."
                      fields={[
                        {
                          name: 'overlap_seconds',
                          label: 'Overlap (seconds)',
                          type: 'number',
                          defaultValue: '3600',
                        },
                      ]}
                      submitLabel="Reroll"
                      onDone={done}
                    />
                    <ActionButton
                      label="Revoke"
                      operation={{ method: 'delete', path: '/console/billing/keys/{key_id}' }}
                      request={() => ({ path: `/console/billing/keys/${encodeURIComponent(k.key_id)}` })}
                      title={`Revoke key ${k.name}`}
                      description={
                        <p>
                          <Id value={k.key_id} /> stops working at once, everywhere, and so do its console
                          sessions
                          {k.key_id === session.key_id ? ' (this one too: you will be signed out)' : ''}.
                        </p>
                      }
                      submitLabel="Revoke now"
                      danger
                      onDone={() => {
                        setMade(undefined)
                        setRevoked(k.name)
                        list.reload()
                      }}
                    />
                  </span>
                ),
            },
          ]}
        />
      ) : null}
    </Page>
  )
}
