import { existsSync } from 'node:fs'
import { execa } from 'execa'
import { afterAll, describe, expect, it } from 'vitest'
import { RWA_BIN } from '../support/server-process.js'
import { cliHome } from '../support/cli.js'

const home = cliHome()
afterAll(() => home.cleanup())

describe('rwa sandbox --demo', () => {
  it('serves a seeded example, prints how to use it, and deletes its temporary database on SIGTERM', async () => {
    const child = execa(process.execPath, [RWA_BIN, 'sandbox', '--demo', '--port', '0', '--json'], {
      extendEnv: false,
      env: { PATH: process.env.PATH ?? '', HOME: home.dir, XDG_CONFIG_HOME: home.configHome },
      reject: false,
      buffer: false,
    })
    try {
      const info = await new Promise<any>((resolve, reject) => {
        let out = ''
        const timer = setTimeout(() => reject(new Error(`sandbox did not report in 30 s: ${out}`)), 30_000)
        child.stdout?.on('data', (chunk: Buffer) => {
          out += chunk.toString()
          if (out.includes('\n}')) {
            clearTimeout(timer)
            resolve(JSON.parse(out))
          }
        })
        child.on('exit', () => reject(new Error(`sandbox exited early: ${out}`)))
      })
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
