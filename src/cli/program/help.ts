import { type Command, Help } from 'commander'

/** Adds an "Examples:" section to a command's --help. */
export function examples(command: Command, lines: string[]): Command {
  return command.addHelpText('after', `\nExamples:\n${lines.map((l) => `  $ ${l}`).join('\n')}\n`)
}

/** `--file FILE|-`: the full JSON request body; flags given as well override its fields. */
export function fileOption(command: Command): Command {
  return command.option(
    '-f, --file <file>',
    'full JSON request body from FILE, or - for stdin (flags override its fields)',
  )
}

/**
 * `--help` laid out as gh lays it out: commands before options, so `rwa transfers --help` starts with
 * what the group can do. A group leaves the global options to `rwa --help` (one line says so); a leaf
 * command shows them after its own. Set on the program with `configureHelp`, which every command
 * inherits.
 */
export function formatHelp(command: Command, helper: Help): string {
  const group = command.parent !== null && command.commands.length > 0
  helper.showGlobalOptions = command.commands.length === 0
  const blocks = Help.prototype.formatHelp
    .call(helper, command, helper)
    .split('\n\n')
    .map((block) => block.replace(/\n+$/, ''))
  const commands = blocks.findIndex((b) => b.startsWith('Commands:'))
  const options = blocks.findIndex((b) => b.startsWith('Options:'))
  if (commands > options && options >= 0) blocks.splice(options, 0, ...blocks.splice(commands, 1))
  if (group) {
    blocks.push(
      'Global options (--url, --profile, --json, -q, --verbose, ...) work here too;\n`rwa --help` lists them.',
    )
  }
  return `${blocks.join('\n\n')}\n`
}
