import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { dirname, join } from 'node:path'
import { z } from 'zod'
import { apiKeySecretSchema } from '../contract/billing.js'
import { EXIT, ExitError } from './exit-error.js'

/** A named connection: where the server is and which key to use. */
export const profileSchema = z.strictObject({
  url: z.url().optional(),
  api_key: apiKeySecretSchema.optional(),
})
export type Profile = z.infer<typeof profileSchema>

/** `$XDG_CONFIG_HOME/rwa/config.json`: the profiles and which one is used when none is named. */
export const profilesFileSchema = z.strictObject({
  current_profile: z.string().optional(),
  profiles: z.record(z.string(), profileSchema).default({}),
})
export type ProfilesFile = z.infer<typeof profilesFileSchema>

/** Profile names are used as flags and file keys: keep them plain. */
export const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/

/**
 * The refusal of a name that names no profile, wherever it was named (`--profile`, `RWA_PROFILE`,
 * `rwa config use`, `rwa config remove`): exit 2, a usage error like a mistyped flag. Exit 4 is the
 * server's "not found": a script that reads it as "that record does not exist" must not get it for a
 * typo in this machine's configuration.
 */
export function unknownProfile(name: string, path = profilesPath()): ExitError {
  return new ExitError(
    EXIT.usage,
    `no profile named ${name} in ${path}`,
    'list profiles with `rwa config list`; create one with `rwa config set NAME --url URL --api-key-stdin`',
  )
}

/** Where the profiles live: `$XDG_CONFIG_HOME/rwa/config.json`, else `~/.config/rwa/config.json`. */
export function profilesPath(env = process.env): string {
  const base =
    env.XDG_CONFIG_HOME && env.XDG_CONFIG_HOME !== '' ? env.XDG_CONFIG_HOME : join(homedir(), '.config')
  return join(base, 'rwa', 'config.json')
}

/** Reads the profiles file; an absent file is an empty one. */
export function readProfiles(path = profilesPath()): ProfilesFile {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { profiles: {} }
    throw error
  }
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    throw new ExitError(
      EXIT.usage,
      `${path} is not valid JSON`,
      'fix or delete the file; `rwa config --help`',
    )
  }
  const parsed = profilesFileSchema.safeParse(json)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!
    throw new ExitError(
      EXIT.usage,
      `${path}: ${issue.path.join('.')}: ${issue.message}`,
      'fix the file or rewrite the profile with `rwa config set`',
    )
  }
  return parsed.data
}

/**
 * Writes the profiles file with mode 0600 (it holds API keys), atomically: a temp file in the same
 * directory renamed over the old one, so a crash never leaves half a file.
 */
export function writeProfiles(file: ProfilesFile, path = profilesPath()): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 })
  const temp = `${path}.${process.pid}.tmp`
  writeFileSync(temp, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 })
  // The mode given to writeFileSync is masked by the umask; make sure it is exactly 0600.
  chmodSync(temp, 0o600)
  renameSync(temp, path)
}
