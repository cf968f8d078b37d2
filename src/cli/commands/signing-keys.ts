import type { Run } from '../invoke.js'

/**
 * `rwa server rotate-signing-key [--reason]`: asks the running server (--url / RWA_URL, with the admin
 * key) to rotate its proof key. Through the API rather than on the database file, so every instance
 * over a shared database learns of it and no server has to stop.
 */
export const rotate: Run<'rotateSigningKey'> = async ({ ctx, send }) => {
  const { data, raw } = await send()
  ctx.out.result(raw, () => {
    ctx.out.record([
      ['kid', data.kid],
      ['valid_from', data.valid_from],
      ['retired_kid', data.retired.kid],
      ['retired_at', data.retired.retired_at],
    ])
    ctx.out.success(`proofs from now on are signed by ${data.kid}; ${data.retired.kid} is retired`)
    ctx.out.info(
      'saved JWKS and trust bundles do not know the new key: save them again (rwa proofs jwks > jwks.json, rwa trust-bundle > trust.json)',
    )
  }, [data.kid])
}
