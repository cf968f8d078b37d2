import { ApiError } from '../../../platform/errors.js'

/** 409: `did` is in another identity of the organization (`identityId`, when known). */
export const didInUse = (did: string, identityId: string | null) =>
  new ApiError(
    'did_in_use',
    identityId === null
      ? `${did} is in another identity already`
      : `${did} is in identity ${identityId} already`,
    { context: { did, identity_id: identityId } },
  )
