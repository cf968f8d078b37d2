import { describe, expect, it } from 'vitest'
import { loadServerConfig } from '../../server/config.js'

describe('loadServerConfig', () => {
  it('defaults to 127.0.0.1:4600 over ./rwa.db with the local payment provider', () => {
    expect(loadServerConfig({}, {})).toMatchObject({
      host: '127.0.0.1',
      port: 4600,
      db: 'rwa.db',
      paymentProvider: 'local',
    })
  })

  it('takes RWA_* variables, and flags over variables', () => {
    const env = { RWA_HOST: '0.0.0.0', RWA_PORT: '8080', RWA_DB: '/tmp/x.db' }
    expect(loadServerConfig({}, env)).toMatchObject({ host: '0.0.0.0', port: 8080, db: '/tmp/x.db' })
    expect(loadServerConfig({ port: '9090' }, env).port).toBe(9090)
  })

  it('names the variable at fault', () => {
    expect(() => loadServerConfig({}, { RWA_PORT: 'eighty' })).toThrow(/RWA_PORT/)
    expect(() => loadServerConfig({}, { RWA_PORT: '70000' })).toThrow(/RWA_PORT/)
    expect(() => loadServerConfig({}, { RWA_ADMIN_KEY: 'secret' })).toThrow(/RWA_ADMIN_KEY/)
  })
})
