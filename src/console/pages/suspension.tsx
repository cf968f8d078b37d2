import { ActionButton } from '../actions.js'

/*
 * Suspend and reinstate (docs/governance.md, "Suspension"): the button the record's state calls for,
 * on a credential's or an attestation's page; none for a revoked record (revocation is final).
 */
export function SuspensionAction(props: {
  kind: 'credential' | 'attestation'
  id: string
  status: string
  onDone: (message: string) => void
}) {
  const plural = props.kind === 'credential' ? 'credentials' : 'attestations'
  const path = `/console/rwa/${plural}/${encodeURIComponent(props.id)}`
  if (props.status === 'active') {
    return (
      <ActionButton
        label={`Suspend ${props.kind}`}
        operation={{ method: 'post', path: `/console/rwa/${plural}/{id}/suspend` }}
        request={(v) => ({ path: `${path}/suspend`, body: v.reason ? { reason: v.reason } : {} })}
        title={`Suspend ${props.kind} ${props.id}`}
        description={
          props.kind === 'credential'
            ? 'Until reinstated: its suspension bit is set, and its token cannot be transferred meanwhile.'
            : 'Until reinstated: its suspension bit is set, and it meets no requirement meanwhile.'
        }
        fields={[{ name: 'reason', label: 'Reason' }]}
        submitLabel="Suspend now"
        onDone={() =>
          props.onDone(`${props.kind === 'credential' ? 'Credential' : 'Attestation'} suspended.`)
        }
      />
    )
  }
  if (props.status === 'suspended') {
    return (
      <ActionButton
        label={`Reinstate ${props.kind}`}
        operation={{ method: 'post', path: `/console/rwa/${plural}/{id}/reinstate` }}
        request={() => ({ path: `${path}/reinstate` })}
        title={`Reinstate ${props.kind} ${props.id}`}
        description="Its suspension bit is cleared: evaluations rely on it again."
        submitLabel="Reinstate now"
        onDone={() =>
          props.onDone(`${props.kind === 'credential' ? 'Credential' : 'Attestation'} reinstated.`)
        }
      />
    )
  }
  return null
}
