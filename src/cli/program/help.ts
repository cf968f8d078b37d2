import type { Command } from 'commander'

/** Adds an "Examples:" section to a command's --help. */
export function examples(command: Command, lines: string[]): Command {
  return command.addHelpText('after', `\nExamples:\n${lines.map((l) => `  $ ${l}`).join('\n')}\n`)
}

/** Repeatable list flag: `--x a,b --x c` collects ["a,b", "c"]; parseList splits the commas. */
export const collect = (value: string, previous: string[] | undefined): string[] => [
  ...(previous ?? []),
  value,
]

/** `--limit`, `--cursor` and `--all`, shared by every governance list. */
export function pageOptions(command: Command): Command {
  return command
    .option('--limit <n>', 'items per page, 1–500 (server default 50)')
    .option('--cursor <cursor>', "start after this cursor (the previous page's next_cursor)")
    .option('--all', 'follow next_cursor and print every page')
}

/** `--file FILE|-`: the full JSON request body; flags given as well override its fields. */
export function fileOption(command: Command): Command {
  return command.option(
    '-f, --file <file>',
    'full JSON request body from FILE, or - for stdin (flags override its fields)',
  )
}
