import { createHash, randomBytes } from 'node:crypto'

export const API_KEY_PREFIX = 'rwa_live_'

/** A new raw API key: `rwa_live_` then 32 random bytes as 43 base64url characters. */
export const generateApiKey = (): string => `${API_KEY_PREFIX}${randomBytes(32).toString('base64url')}`

/** What is stored and looked up instead of the key: its SHA-256, hex. */
export const hashApiKey = (apiKey: string): string => createHash('sha256').update(apiKey).digest('hex')

/** The only form of a key shown after creation: its first 12 characters and an ellipsis. */
export const keyPrefixOf = (apiKey: string): string => `${apiKey.slice(0, 12)}...`
