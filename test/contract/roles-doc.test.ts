import { readFileSync, writeFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { type OperationSpec, rolesOf } from '../../src/contract/operation.js'
import { ROLE_PURPOSE, ROLES } from '../../src/contract/roles.js'
import { ROUTES } from '../../src/contract/routes.js'

/*
 * docs/roles.md says which role may call which operation: made from the route table's declarations,
 * which the server's access middleware enforces (test/server/http/roles.test.ts). This test fails when
 * the page and the code disagree; `RWA_WRITE_DOCS=1 npx vitest run test/contract/roles-doc.test.ts`
 * rewrites the page.
 */

const PAGE = new URL('../../docs/roles.md', import.meta.url)

const INTRO = `# Roles: which key may call what

A key has one or more roles (\`roles\` when it is created; \`["owner"]\` when none are given, so a key
made without them may do everything its organization may). An operation a role may not call answers
403 \`forbidden\` with reason \`role_required\`, and \`context.roles\` names the roles that would do
(\`context.key_roles\` the key's own). Every role reads its organization's records. The admin key is an
owner, of every organization; a key of the operator organization \`admin\` without \`owner\` is no admin
key. How to give a CI job a key that may only request transfers, and how to reroll a key without a
failed request: [keys.md](keys.md).

This page is generated from the route tables in \`src/contract/\` (each operation's \`access\` and
\`roles\`), which the server enforces; \`npm test\` fails when it is out of date.
`

/** The cell of an operation for a role, from its declaration. */
function cell(operation: OperationSpec, role: (typeof ROLES)[number]): string {
  if (operation.access === 'public') return 'public'
  if (operation.access === 'admin' || operation.access === 'operator')
    return role === 'owner' ? 'admin key' : '—'
  return rolesOf(operation).includes(role) ? 'yes' : '—'
}

function render(): string {
  const lines = [INTRO, '## The roles', '', '| role | for |', '|---|---|']
  for (const role of ROLES) lines.push(`| \`${role}\` | ${ROLE_PURPOSE[role]} |`)
  lines.push(
    '',
    '## Which role may call each operation',
    '',
    '`public`: no key needed; `admin key`: the admin key alone; `yes`: a key with that role.',
    'Governance operations also need a paid plan or an active trial (403 `plan_required`).',
    '',
    `| operation | method and path | ${ROLES.map((r) => `\`${r}\``).join(' | ')} |`,
    `|---|---|${ROLES.map(() => '---').join('|')}|`,
  )
  for (const operation of Object.values(ROUTES) as OperationSpec[]) {
    lines.push(
      `| \`${operation.operationId}\` | \`${operation.method.toUpperCase()} ${operation.path}\` | ${ROLES.map((role) => cell(operation, role)).join(' | ')} |`,
    )
  }
  return `${lines.join('\n')}\n`
}

describe('docs/roles.md', () => {
  it('says which role may call each operation, as the route table declares it', () => {
    const expected = render()
    if (process.env.RWA_WRITE_DOCS === '1') writeFileSync(PAGE, expected)
    expect(readFileSync(PAGE, 'utf8')).toBe(expected)
  })
})
