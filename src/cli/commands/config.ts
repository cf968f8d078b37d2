import type { Command } from 'commander'
import { API_KEY_PATTERN } from '../../contract/billing.js'
import { CliContext, checkServerUrl, readApiKeyFile, readApiKeyStdin, withContext } from '../context.js'
import { EXIT, ExitError } from '../exit-error.js'
import { confirmDestructive } from '../input.js'
import {
  PROFILE_NAME,
  type Profile,
  profilesPath,
  readProfiles,
  unknownProfile,
  writeProfiles,
} from '../profiles.js'

/** How a stored key is shown: its first 12 characters, like the server's `key_prefix`. */
export const maskKey = (key: string | undefined): string | undefined =>
  key === undefined ? undefined : `${key.slice(0, 12)}...`

function checkName(name: string): void {
  if (!PROFILE_NAME.test(name)) {
    throw new ExitError(
      EXIT.usage,
      `invalid profile name ${JSON.stringify(name)}`,
      'use letters, digits, ".", "_" or "-"',
    )
  }
}

/** `rwa config set NAME`: saves the connection flags given on this command line as a profile. */
export function set(name: string, options: { use?: boolean }, command: Command) {
  return withContext(command, async (ctx) => {
    checkName(name)
    const o = ctx.options
    let apiKey: string | undefined
    if (o.apiKey !== undefined) apiKey = o.apiKey
    else if (o.apiKeyFile !== undefined) apiKey = readApiKeyFile(o.apiKeyFile)
    else if (o.apiKeyStdin) apiKey = await readApiKeyStdin()
    if (o.url === undefined && apiKey === undefined && !options.use) {
      throw new ExitError(
        EXIT.usage,
        'nothing to save: give --url and/or an API key',
        'e.g. `rwa config set prod --url https://rwa.example.com --api-key-stdin`',
      )
    }
    if (o.url !== undefined) checkServerUrl(o.url, '--url')
    if (apiKey !== undefined && !API_KEY_PATTERN.test(apiKey)) {
      throw new ExitError(
        EXIT.usage,
        'the API key is malformed: expected rwa_live_ followed by 43 characters',
      )
    }
    const file = readProfiles()
    const profile: Profile = { ...file.profiles[name] }
    if (o.url !== undefined) profile.url = o.url
    if (apiKey !== undefined) profile.api_key = apiKey
    file.profiles[name] = profile
    if (options.use || file.current_profile === undefined) file.current_profile = name
    writeProfiles(file)
    ctx.out.success(
      `saved profile ${name} in ${profilesPath()}${file.current_profile === name ? ' (in use)' : ''}`,
    )
    if (o.apiKeyFile !== undefined) {
      // The profile holds the key itself, not the file's path: say so, since a later change to the file
      // does not reach it.
      ctx.out.info(
        `the API key was copied from ${o.apiKeyFile} into the profile (mode 0600); a later change to ${o.apiKeyFile} does not reach the profile: run \`rwa config set ${name} --api-key-file ${o.apiKeyFile}\` again`,
      )
    }
  })
}

/** `rwa config use NAME`: the profile used when neither --profile nor RWA_PROFILE names one. */
export function use(name: string, _options: unknown, command: Command) {
  return withContext(command, async (ctx) => {
    const file = readProfiles()
    if (!file.profiles[name]) throw unknownProfile(name)
    file.current_profile = name
    writeProfiles(file)
    ctx.out.success(`now using profile ${name}`)
  })
}

/** `rwa config list`: profiles with masked keys. */
export function list(_options: unknown, command: Command) {
  return withContext(command, async (ctx) => {
    const file = readProfiles()
    const safe = Object.fromEntries(
      Object.entries(file.profiles).map(([name, p]) => [name, { url: p.url, api_key: maskKey(p.api_key) }]),
    )
    ctx.out.result(
      { current_profile: file.current_profile ?? null, profiles: safe },
      () =>
        ctx.out.table(
          ['', 'profile', 'url', 'api_key'],
          Object.entries(safe).map(([name, p]) => [
            name === file.current_profile ? '*' : '',
            name,
            p.url,
            p.api_key,
          ]),
        ),
      Object.keys(safe),
    )
  })
}

/** `rwa config show`: the connection this command line would use, and where each part comes from. */
export function show(_options: unknown, command: Command) {
  return withContext(command, async (ctx) => {
    const c = await ctx.resolveConnection()
    const view = {
      profile: c.profileName ?? null,
      url: c.url,
      url_source: c.urlSource,
      api_key: maskKey(c.apiKey) ?? null,
      api_key_source: c.apiKeySource ?? null,
      config_file: profilesPath(),
    }
    ctx.out.result(view, () => ctx.out.record(Object.entries(view)))
  })
}

/** `rwa config remove NAME`. */
export function remove(name: string, _options: unknown, command: Command) {
  return withContext(command, async (ctx) => {
    const file = readProfiles()
    if (!file.profiles[name]) throw unknownProfile(name)
    await confirmDestructive(ctx, `remove profile ${name}`)
    delete file.profiles[name]
    if (file.current_profile === name) file.current_profile = undefined
    writeProfiles(file)
    ctx.out.success(`removed profile ${name}`)
  })
}

/** `rwa config path`. */
export function path(_options: unknown, command: Command) {
  new CliContext(command).out.line(profilesPath())
  return Promise.resolve()
}
