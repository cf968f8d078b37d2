import type { Hash, NodeId } from '../../../src/tlog/merkle.js'
import type { Executor } from '../db/queries.js'

/*
 * Where an organization's verifiable log lives (docs/governance.md, "The verifiable log"), as Tessera
 * keeps its storage behind drivers: the append (append.ts) and the proofs (service.ts) do the log's math
 * (src/tlog) over this interface, and only a store knows how it keeps the tree (server/platform/audit-log/sql-store.ts:
 * rows of nodes, and tiles of them). Each call runs on the executor it is given: the write's transaction
 * for an append, the database for a read of what was committed.
 */

/** A log's state: its size, its root, and its compact range (the complete subtrees of `size`, largest first). */
export interface LogState {
  size: number
  root: Hash
  frontier: Hash[]
}

/** A complete subtree's hash: `level` 0 is a leaf. */
export interface LogNode extends NodeId {
  hash: Hash
}

export interface LogStore {
  /** The log as last committed (size 0 and the empty tree's root when it has none). */
  readCheckpoint(db: Executor, orgId: string): Promise<LogState>
  /**
   * The log's state, locked until the write commits: appends of one organization run one at a time,
   * in commit order, across instances. The first append creates it.
   */
  lockCheckpoint(db: Executor, orgId: string): Promise<LogState>
  /** Stores an append: the complete subtrees it completed, in order, and the state it leaves. */
  append(db: Executor, orgId: string, completed: LogNode[], next: LogState): Promise<void>
  /**
   * The stored hashes of complete subtrees of the log at `size` (a proof's O(log n) of them), in any
   * order; one the store lacks is left out (a corrupt store: the caller says which is missing).
   */
  readNodes(db: Executor, orgId: string, size: number, nodes: NodeId[]): Promise<LogNode[]>
}
