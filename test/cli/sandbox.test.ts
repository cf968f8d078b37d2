import { existsSync } from 'node:fs'
import { afterAll, describe, expect, it } from 'vitest'
import { cliHome, startSandbox } from '../support/cli.js'

const home = cliHome()
afterAll(() => home.cleanup())

describe('rwa sandbox --demo', () => {
  it('serves a seeded example, prints how to use it, and deletes its temporary database on SIGTERM', async () => {
    const { child, info } = await startSandbox(home, ['--demo', '--port', '0'])
    try {
      expect(info.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
      expect(info.admin_key).toMatch(/^rwa_live_/)
      expect(info.temporary).toBe(true)
      expect(existsSync(info.db)).toBe(true)
      expect(info.demo).toMatchObject({ seeded: true })

      const env = { RWA_URL: info.url, RWA_API_KEY: info.admin_key }
      const jurisdictions = JSON.parse((await home.run(['jurisdictions', 'list', '--json'], { env })).stdout)
      expect(jurisdictions.jurisdictions.map((j: any) => j.jurisdiction_id).sort()).toEqual([
        'CH',
        'SG',
        'US',
      ])
      const transfers = JSON.parse((await home.run(['transfers', 'list', '--json'], { env })).stdout)
      expect(transfers.transfers.map((t: any) => t.status).sort()).toEqual(['approved', 'rejected'])
      const approved = transfers.transfers.find((t: any) => t.status === 'approved')
      expect(approved.transfer_id).toBe(info.demo.approved_transfer_id)
      expect((await home.run(['proofs', 'verify', approved.proof_id], { env })).exitCode).toBe(0)

      child.kill('SIGTERM')
      const result = await child
      expect(result.exitCode).toBe(0)
      expect(existsSync(info.db)).toBe(false)
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL')
    }
  })
})
