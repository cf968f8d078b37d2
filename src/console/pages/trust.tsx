import { href, Link } from '../router.js'
import { Page, Pending, Section, useGet } from '../ui.js'

interface Jurisdiction {
  jurisdiction_id: string
  name: string
  transfer_requirements: string[]
  credential_types: string[]
}

interface TrustRelation {
  trust_id: string
  from_jurisdiction: string
  to_jurisdiction: string
  mutual: boolean
  status: string
}

/** How an edge is named: "SG → CH" (transfers may go from SG to CH), "US ↔ SG" (both ways). */
export const edgeName = (t: Pick<TrustRelation, 'from_jurisdiction' | 'to_jurisdiction' | 'mutual'>) =>
  `${t.from_jurisdiction} ${t.mutual ? '↔' : '→'} ${t.to_jurisdiction}`

const SIZE = 640

/** A node's radius: large while few jurisdictions share the circle, so their ids stay legible on a phone. */
const radiusFor = (count: number): number => (count <= 8 ? 34 : count <= 16 ? 26 : 18)

/** Jurisdictions on a circle, in id order, so the same organization always draws the same picture. */
function layout(ids: string[], nodeR: number): Map<string, { x: number; y: number }> {
  const positions = new Map<string, { x: number; y: number }>()
  const radius = ids.length <= 1 ? 0 : SIZE / 2 - nodeR - 30
  ids.forEach((id, i) => {
    const angle = (2 * Math.PI * i) / ids.length - Math.PI / 2
    positions.set(id, { x: SIZE / 2 + radius * Math.cos(angle), y: SIZE / 2 + radius * Math.sin(angle) })
  })
  return positions
}

/** The edge between two nodes, cut at their circles; a one-way edge bends so both directions show. */
function edgePath(
  a: { x: number; y: number },
  b: { x: number; y: number },
  bend: boolean,
  nodeR: number,
): string {
  const dx = b.x - a.x
  const dy = b.y - a.y
  const length = Math.hypot(dx, dy) || 1
  const ux = dx / length
  const uy = dy / length
  const start = { x: a.x + ux * (nodeR + 2), y: a.y + uy * (nodeR + 2) }
  const end = { x: b.x - ux * (nodeR + 6), y: b.y - uy * (nodeR + 6) }
  if (!bend) return `M${start.x.toFixed(1)},${start.y.toFixed(1)} L${end.x.toFixed(1)},${end.y.toFixed(1)}`
  const offset = Math.min(40, length / 6)
  const cx = (start.x + end.x) / 2 - uy * offset
  const cy = (start.y + end.y) / 2 + ux * offset
  return `M${start.x.toFixed(1)},${start.y.toFixed(1)} Q${cx.toFixed(1)},${cy.toFixed(1)} ${end.x.toFixed(1)},${end.y.toFixed(1)}`
}

export function TrustGraph(props: { jurisdictions: Jurisdiction[]; relations: TrustRelation[] }) {
  const ids = [
    ...new Set([
      ...props.jurisdictions.map((j) => j.jurisdiction_id),
      ...props.relations.flatMap((t) => [t.from_jurisdiction, t.to_jurisdiction]),
    ]),
  ].sort()
  const nodeR = radiusFor(ids.length)
  const positions = layout(ids, nodeR)
  const byId = new Map(props.jurisdictions.map((j) => [j.jurisdiction_id, j]))
  return (
    <svg
      class="trust-graph"
      viewBox={`0 0 ${SIZE} ${SIZE}`}
      role="img"
      aria-label={`Trust graph: ${ids.length} jurisdictions, ${props.relations.length} relations (listed below)`}
    >
      <defs>
        <marker
          id="arrow"
          viewBox="0 0 10 10"
          refX="9"
          refY="5"
          markerWidth="7"
          markerHeight="7"
          orient="auto-start-reverse"
        >
          <path d="M0,0 L10,5 L0,10 z" class="arrow-head" />
        </marker>
      </defs>
      {props.relations.map((t) => {
        const a = positions.get(t.from_jurisdiction)
        const b = positions.get(t.to_jurisdiction)
        if (!a || !b) return null
        return (
          <g key={t.trust_id} class={t.mutual ? 'edge mutual' : 'edge'}>
            <title>{edgeName(t)}</title>
            <path
              d={edgePath(a, b, !t.mutual, nodeR)}
              marker-end="url(#arrow)"
              marker-start={t.mutual ? 'url(#arrow)' : undefined}
            />
          </g>
        )
      })}
      {ids.map((id) => {
        const p = positions.get(id)!
        const j = byId.get(id)
        const requirements = j?.transfer_requirements.join(', ') || 'none'
        return (
          <g key={id} class="node">
            <title>{`${id}${j ? ` — ${j.name}` : ''}. Requirements: ${requirements}`}</title>
            <circle cx={p.x} cy={p.y} r={nodeR} />
            <text
              x={p.x}
              y={p.y}
              text-anchor="middle"
              dominant-baseline="central"
              font-size={Math.round(nodeR * 0.72)}
            >
              {id}
            </text>
          </g>
        )
      })}
    </svg>
  )
}

export function Trust() {
  const jurisdictions = useGet<{ jurisdictions: Jurisdiction[]; total: number }>(
    '/console/rwa/jurisdictions',
    {
      limit: 500,
    },
  )
  const trust = useGet<{ trust_relations: TrustRelation[]; total: number }>(
    '/console/rwa/jurisdictions/trust',
    {
      limit: 500,
      status: 'active',
    },
  )
  // In the order of their ids, as a reader looks one up (the API lists them newest first).
  const byIds = (a: TrustRelation, b: TrustRelation) =>
    a.from_jurisdiction.localeCompare(b.from_jurisdiction) ||
    a.to_jurisdiction.localeCompare(b.to_jurisdiction)
  const relations = trust.state === 'done' ? [...trust.data.trust_relations].sort(byIds) : []
  const jurisdictionsById =
    jurisdictions.state === 'done'
      ? [...jurisdictions.data.jurisdictions].sort((a, b) =>
          a.jurisdiction_id.localeCompare(b.jurisdiction_id),
        )
      : []
  return (
    <Page
      title="Trust"
      lead="An arrow from A to B: transfers may go from A to B, and B recognises what A attests. A two-headed arrow: both ways. Hover a jurisdiction for its requirements."
    >
      <Pending loaded={jurisdictions} />
      <Pending loaded={trust} />
      {jurisdictions.state === 'done' && trust.state === 'done' ? (
        <>
          <Section title="Trust graph">
            {jurisdictions.data.total > jurisdictions.data.jurisdictions.length ? (
              <p class="muted">
                The first {jurisdictions.data.jurisdictions.length} jurisdictions are drawn.
              </p>
            ) : null}
            <TrustGraph jurisdictions={jurisdictions.data.jurisdictions} relations={relations} />
          </Section>
          <Section title="Relations">
            {relations.length === 0 ? (
              <p class="empty">No active trust relation.</p>
            ) : (
              <ul class="relations">
                {relations.map((t) => (
                  <li key={t.trust_id}>
                    <strong>{edgeName(t)}</strong>{' '}
                    <span class="muted">
                      {t.mutual
                        ? `${t.from_jurisdiction} and ${t.to_jurisdiction} trust each other`
                        : `${t.to_jurisdiction} trusts ${t.from_jurisdiction}: transfers from ${t.from_jurisdiction} to ${t.to_jurisdiction}`}
                    </span>{' '}
                    <code class="id">{t.trust_id}</code>
                  </li>
                ))}
              </ul>
            )}
          </Section>
          <Section title="Requirements of each jurisdiction">
            <ul class="relations">
              {jurisdictionsById.map((j) => (
                <li key={j.jurisdiction_id}>
                  <Link to={href('jurisdictions', j.jurisdiction_id)}>
                    <code class="id">{j.jurisdiction_id}</code>
                  </Link>{' '}
                  {j.name}: {j.transfer_requirements.join(', ') || 'no requirement'}
                </li>
              ))}
            </ul>
          </Section>
        </>
      ) : null}
    </Page>
  )
}
