import { createHash } from 'node:crypto'
import canonicalizeModule from 'canonicalize'
import type { Kysely, Migration } from 'kysely'

/**
 * The verifiable log of each organization's audit events (issue 25;
 * docs/governance.md, "The verifiable log"):
 * - `audit_events.log_index`: the event's position in its organization's log (unique per organization).
 * - `audit_logs`: one row per organization, its tree's size, root (hex) and compact range (the hex
 *   roots of the complete subtrees its size decomposes into, largest first, comma-separated): an
 *   append reads and rewrites this row only, and PostgreSQL's lock on it serializes appends.
 * - `audit_log_nodes`: every complete subtree's hash (level 0: the leaves), which never changes once
 *   written: a proof at any size reads O(log n) of them.
 * The events recorded before this migration are appended in their id order (time-sortable).
 */
export const auditLog: Migration = {
  // biome-ignore lint/suspicious/noExplicitAny: the backfill reads rows of the schema as it is here.
  async up(db: Kysely<any>) {
    await db.schema.alterTable('audit_events').addColumn('log_index', 'integer').execute()
    await db.schema
      .createTable('audit_logs')
      .addColumn('org_id', 'text', (c) => c.primaryKey())
      .addColumn('size', 'integer', (c) => c.notNull())
      .addColumn('root', 'text', (c) => c.notNull())
      .addColumn('frontier', 'text', (c) => c.notNull())
      .execute()
    await db.schema
      .createTable('audit_log_nodes')
      .addColumn('org_id', 'text', (c) => c.notNull())
      .addColumn('level', 'integer', (c) => c.notNull())
      .addColumn('idx', 'integer', (c) => c.notNull())
      .addColumn('hash', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('audit_log_nodes_pk', ['org_id', 'level', 'idx'])
      .execute()

    const orgs = await db.selectFrom('audit_events').select('org_id').distinct().execute()
    for (const { org_id } of orgs) {
      const rows = await db
        .selectFrom('audit_events')
        .selectAll()
        .where('org_id', '=', org_id)
        .orderBy('event_id')
        .execute()
      let frontier: Buffer[] = []
      let size = 0
      for (const row of rows) {
        const step = appendToFrontier(size, frontier, eventLeafHash(row as AuditEventRow))
        frontier = step.frontier
        await db
          .updateTable('audit_events')
          .set({ log_index: size })
          .where('event_id', '=', row.event_id)
          .execute()
        await db
          .insertInto('audit_log_nodes')
          .values(
            step.completed.map((n) => ({
              org_id,
              level: n.level,
              idx: n.index,
              hash: n.hash.toString('hex'),
            })),
          )
          .execute()
        size += 1
      }
      await db
        .insertInto('audit_logs')
        .values({
          org_id,
          size,
          root: rootOfFrontier(frontier).toString('hex'),
          frontier: frontier.map((h) => h.toString('hex')).join(','),
        })
        .execute()
    }
    await db.schema
      .createIndex('audit_events_log_idx')
      .on('audit_events')
      .columns(['org_id', 'log_index'])
      .unique()
      .execute()
  },
}

/*
 * What the backfill needs of the log, copied as it was when this migration was written
 * (docs/architecture.md, "Migrations are frozen in time"): an event's leaf is RFC 8785 canonical JSON of
 * the event as the API answered it, without its log_index, hashed as RFC 9162 §2.1.1 says; the log keeps
 * its compact range (the frontier) and every complete subtree.
 */

const canonicalize = ((canonicalizeModule as unknown as { default?: unknown }).default ??
  canonicalizeModule) as (input: unknown) => string | undefined

interface AuditEventRow {
  event_id: string
  org_id: string
  at: string
  actor: string
  request_id: string | null
  action: string
  target_type: string
  target_id: string
  changes: string | null
}

const sha256 = (...parts: Uint8Array[]): Buffer => {
  const h = createHash('sha256')
  for (const part of parts) h.update(part)
  return h.digest()
}

const hashChildren = (left: Uint8Array, right: Uint8Array): Buffer => sha256(Buffer.from([0x01]), left, right)

/** The leaf hash of a stored event: SHA-256(0x00 || its canonical JSON without log_index). */
function eventLeafHash(row: AuditEventRow): Buffer {
  const event = {
    event_id: row.event_id,
    org_id: row.org_id,
    at: row.at,
    actor: JSON.parse(row.actor),
    request_id: row.request_id,
    action: row.action,
    target: { type: row.target_type, id: row.target_id },
    ...(row.changes === null ? {} : { changes: JSON.parse(row.changes) }),
  }
  const canonical = canonicalize(event)
  if (canonical === undefined) throw new Error(`audit event ${row.event_id} cannot be canonicalized`)
  return sha256(Buffer.from([0x00]), Buffer.from(canonical, 'utf8'))
}

/** Appends a leaf to a tree of `size` leaves given its frontier: the new frontier and the subtrees completed. */
function appendToFrontier(
  size: number,
  frontier: Buffer[],
  leafHash: Buffer,
): { frontier: Buffer[]; completed: { level: number; index: number; hash: Buffer }[] } {
  const next = [...frontier]
  const completed = [{ level: 0, index: size, hash: leafHash }]
  let hash = leafHash
  let level = 0
  let index = size
  while (index % 2 === 1) {
    const left = next.pop()
    if (!left) throw new Error(`the frontier of tree size ${size} is too short`)
    hash = hashChildren(left, hash)
    level += 1
    index = Math.floor(index / 2)
    completed.push({ level, index, hash })
  }
  next.push(hash)
  return { frontier: next, completed }
}

/** The root of a tree from its frontier (largest subtree first); the empty tree's is SHA-256 of nothing. */
function rootOfFrontier(frontier: Buffer[]): Buffer {
  if (frontier.length === 0) return sha256()
  let acc = frontier[frontier.length - 1] as Buffer
  for (let i = frontier.length - 2; i >= 0; i--) acc = hashChildren(frontier[i] as Buffer, acc)
  return acc
}
