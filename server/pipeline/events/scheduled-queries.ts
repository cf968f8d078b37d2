import type { Executor } from '../../platform/db/queries.js'

/** The queries of the scheduled events' job (server/areas/events/scheduled.ts). */

/**
 * Takes or renews the job's lease: true if `holder` holds it until `until`. A lease is taken when it
 * is free or expired, or renewed by its holder; a conditional update, so two instances never both hold it.
 */
export async function claimJobLease(db: Executor, job: string, holder: string, now: string, until: string) {
  await db
    .insertInto('job_leases')
    .values({ job, holder, lease_until: until })
    .onConflict((oc) => oc.column('job').doNothing())
    .execute()
  const result = await db
    .updateTable('job_leases')
    .set({ holder, lease_until: until })
    .where('job', '=', job)
    .where((eb) => eb.or([eb('holder', '=', holder), eb('lease_until', '<', now)]))
    .executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}

/** Active attestations whose valid_until falls between `now` and `until`. */
export function expiringAttestations(db: Executor, now: string, until: string) {
  return db
    .selectFrom('attestations')
    .select(['org_id', 'attestation_id as id', 'valid_until as deadline'])
    .where('status', '=', 'active')
    .where('valid_until', '>', now)
    .where('valid_until', '<=', until)
    .execute() as Promise<Array<{ org_id: string; id: string; deadline: string }>>
}

/** Unrevoked keys whose expires_at falls between `now` and `until`. */
export function expiringKeys(db: Executor, now: string, until: string) {
  return db
    .selectFrom('api_keys')
    .select(['org_id', 'key_id as id', 'expires_at as deadline'])
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .where('expires_at', '<=', until)
    .execute() as Promise<Array<{ org_id: string; id: string; deadline: string }>>
}

/** Organizations whose trial ends between `now` and `until`. */
export function endingTrials(db: Executor, now: string, until: string) {
  return db
    .selectFrom('organizations')
    .select(['org_id', 'org_id as id', 'trial_ends_at as deadline'])
    .where('trial_ends_at', '>', now)
    .where('trial_ends_at', '<=', until)
    .execute() as Promise<Array<{ org_id: string; id: string; deadline: string }>>
}

/**
 * Marks the thresholds reached (those already marked are left alone); true if `nearest` was not
 * marked before, i.e. its event is to fire now.
 */
export async function markFired(
  db: Executor,
  type: string,
  subjectId: string,
  thresholds: string[],
  nearest: string,
  orgId: string,
  at: string,
): Promise<boolean> {
  const first = await db
    .insertInto('scheduled_event_marks')
    .values({ type, subject_id: subjectId, threshold: nearest, org_id: orgId, fired_at: at })
    .onConflict((oc) => oc.columns(['type', 'subject_id', 'threshold']).doNothing())
    .executeTakeFirst()
  // Marked already (by an earlier run, or another instance whose lease just ended): fired before.
  if (Number(first.numInsertedOrUpdatedRows ?? 0) === 0) return false
  await db
    .insertInto('scheduled_event_marks')
    .values(
      thresholds.map((threshold) => ({
        type,
        subject_id: subjectId,
        threshold,
        org_id: orgId,
        fired_at: at,
      })),
    )
    .onConflict((oc) => oc.columns(['type', 'subject_id', 'threshold']).doNothing())
    .execute()
  return true
}
