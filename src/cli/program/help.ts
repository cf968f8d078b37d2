import type { Command } from 'commander'
import { declareFlags } from '../flags/flag.js'
import { PAGE } from '../flags/governance.js'

/** Adds an "Examples:" section to a command's --help. */
export function examples(command: Command, lines: string[]): Command {
  return command.addHelpText('after', `\nExamples:\n${lines.map((l) => `  $ ${l}`).join('\n')}\n`)
}

/** `--limit`, `--cursor` and `--all`, shared by every governance list. */
export function pageOptions(command: Command): Command {
  return declareFlags(command, PAGE).option('--all', 'follow next_cursor and print every page')
}

/** `--file FILE|-`: the full JSON request body; flags given as well override its fields. */
export function fileOption(command: Command): Command {
  return command.option(
    '-f, --file <file>',
    'full JSON request body from FILE, or - for stdin (flags override its fields)',
  )
}
