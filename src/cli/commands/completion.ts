import type { Command, Option } from 'commander'
import { EXIT, ExitError } from '../exit-error.js'

const rootOf = (command: Command): Command => {
  let c = command
  while (c.parent) c = c.parent
  return c
}

/** The flags a command offers: an earlier spelling kept for old scripts (hidden from --help) is not. */
const flagsOf = (options: readonly Option[]): string[] =>
  options
    .filter((o) => !o.hidden)
    .flatMap((o) => [o.long, o.short])
    .filter((f): f is string => typeof f === 'string')

/** Every command path ("" for the root, "/keys/list" ...) with the words that may follow it. */
function completionTable(root: Command): Array<{ path: string; words: string[] }> {
  const globalFlags = flagsOf(root.options)
  const rows: Array<{ path: string; words: string[] }> = []
  const visit = (command: Command, path: string) => {
    const subcommands = command.commands.filter((c) => c.name() !== 'help')
    const words = [...subcommands.map((c) => c.name()), ...flagsOf(command.options), ...globalFlags, '--help']
    rows.push({ path, words: [...new Set(words)] })
    for (const sub of subcommands) visit(sub, `${path}/${sub.name()}`)
  }
  visit(root, '')
  return rows
}

/** A bash completion script generated from the program's own command tree, so it never goes stale. */
export function bashScript(root: Command): string {
  const table = completionTable(root)
  const known = table.filter((r) => r.path !== '').map((r) => r.path)
  return `# rwa bash completion. Load with: source <(rwa completion bash)
_rwa() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" path="" w i words
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    [[ "$w" == -* ]] && continue
    case "$path/$w" in
      ${known.join('|')}) path="$path/$w" ;;
    esac
  done
  case "$path" in
${table.map((r) => `    "${r.path}") words="${r.words.join(' ')}" ;;`).join('\n')}
  esac
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -o default -F _rwa rwa
`
}

/** The zsh script: the bash one through zsh's bashcompinit. */
export function zshScript(root: Command): string {
  return `# rwa zsh completion. Load with: source <(rwa completion zsh)
autoload -U +X bashcompinit && bashcompinit
${bashScript(root)}`
}

/** `rwa completion bash|zsh`. */
export async function completion(shell: string, _options: unknown, command: Command): Promise<void> {
  const root = rootOf(command)
  if (shell === 'bash') process.stdout.write(bashScript(root))
  else if (shell === 'zsh') process.stdout.write(zshScript(root))
  else throw new ExitError(EXIT.usage, `unsupported shell ${JSON.stringify(shell)}`, 'use bash or zsh')
}
