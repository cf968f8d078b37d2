import { describe, expect, it } from 'vitest'
import { COUNTRY_CODES } from '../../src/contract/countries.js'
import { countrySchema } from '../../src/contract/investors.js'

/*
 * The country codes the contract takes (docs/identities.md, "Country codes"): the 249 officially assigned
 * ISO 3166-1 alpha-2 codes and XK, and how countrySchema refuses the others.
 */

describe('COUNTRY_CODES', () => {
  it('holds the 249 officially assigned codes and XK, each two upper-case letters', () => {
    expect(COUNTRY_CODES.size).toBe(250)
    expect([...COUNTRY_CODES].filter((code) => code !== 'XK')).toHaveLength(249)
    for (const code of COUNTRY_CODES) expect(code).toMatch(/^[A-Z]{2}$/)
  })

  it('has the codes easy to miss: recent, disputed, uninhabited, or read as something else', () => {
    // Antarctica, Bonaire, Curaçao, Sint Maarten, South Sudan, Western Sahara, Palestine, Taiwan,
    // Namibia (NA: "not available" to some parsers), Åland, Bouvet Island, the US Minor Outlying Islands.
    for (const code of ['AQ', 'BQ', 'CW', 'SX', 'SS', 'EH', 'PS', 'TW', 'NA', 'AX', 'BV', 'UM', 'GB', 'US']) {
      expect(COUNTRY_CODES.has(code), code).toBe(true)
    }
    expect(COUNTRY_CODES.has('XK')).toBe(true)
  })

  it('leaves out withdrawn, reserved and user-assigned codes', () => {
    // Netherlands Antilles, Serbia and Montenegro, Yugoslavia (withdrawn); EU, UK, UN, SU (reserved);
    // AA, QM-QZ, XA-XZ but XK, ZZ (user-assigned).
    for (const code of ['AN', 'CS', 'YU', 'EU', 'UK', 'UN', 'SU', 'AA', 'QQ', 'XX', 'XA', 'ZZ']) {
      expect(COUNTRY_CODES.has(code), code).toBe(false)
    }
  })
})

describe('countrySchema', () => {
  const messages = (value: unknown) => countrySchema.safeParse(value).error?.issues.map((i) => i.message)

  it('takes an assigned code and XK', () => {
    for (const code of ['US', 'SS', 'XK']) expect(countrySchema.parse(code)).toBe(code)
  })

  it('refuses an unassigned code saying which, and any other text with one message', () => {
    expect(messages('XX')).toEqual([
      'expected an assigned ISO 3166-1 alpha-2 country code, e.g. US: XX is not one',
    ])
    expect(messages('UK')).toEqual([
      'expected an assigned ISO 3166-1 alpha-2 country code, e.g. US: UK is not one',
    ])
    for (const value of ['us', 'USA', '', 'U1']) {
      expect(messages(value), value).toEqual([
        'expected an assigned ISO 3166-1 alpha-2 country code (two upper-case letters), e.g. US',
      ])
    }
  })
})
