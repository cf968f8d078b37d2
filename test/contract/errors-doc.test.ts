import { readFileSync, writeFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { ERROR_STATUS, REASONS, type Reason } from '../../src/contract/errors.js'
import { type OperationSpec, standardReasons } from '../../src/contract/operation.js'
import { ROUTES } from '../../src/contract/routes.js'

/*
 * docs/errors.md lists every refusal reason with when it happens, and the reasons of each operation:
 * both made from the one enum (src/contract/errors.ts) and the route table. This test fails when the
 * page and the code disagree; `RWA_WRITE_DOCS=1 npx vitest run test/contract/errors-doc.test.ts`
 * rewrites the page.
 */

const PAGE = new URL('../../docs/errors.md', import.meta.url)

const INTRO = `# Errors and refusal reasons

Every error is an RFC 9457 problem document (\`application/problem+json\`):

\`\`\`json
{
  "type": "urn:rwa:problem:conflict",
  "title": "Conflict",
  "status": 409,
  "detail": "Credential cred_01JD... is already tokenized as tok_01JD...",
  "code": "conflict",
  "reason": "credential_already_tokenized",
  "context": { "credential_id": "cred_01JD...", "token_id": "tok_01JD..." },
  "request_id": "6f1c2b9e-3d4a-4c57-9a1e-2b8f0c7d5e31"
}
\`\`\`

- \`code\` is the broad class (it fixes the HTTP status); \`reason\` is the stable, specific cause;
  \`context\` names the ids and values involved (\`{}\` when none). **Programs branch on \`code\`, \`reason\` and
  \`context\`; \`detail\` is prose for people and may be reworded at any time.** The \`rwa\` CLI reads only
  the first three for its hints and exit codes.
- \`errors\` (400 only) lists each refused field with its dotted \`path\` and a message.
- \`request_id\` is the request's \`X-Request-Id\`; the server's log line of the request carries it.
- The OpenAPI document (\`GET /openapi.json\`) lists the reasons each operation can give under each
  refusal status, as \`x-reasons\`.

This page is generated from \`REASONS\` in \`src/contract/errors.ts\` and the route tables in
\`src/contract/\`; \`npm test\` fails when it is out of date.
`

function render(): string {
  const lines = [INTRO, '## Every reason', '', '| status | code | reason | when |', '|---|---|---|---|']
  const reasons = (Object.keys(REASONS) as Reason[]).sort(
    (a, b) => ERROR_STATUS[REASONS[a].code] - ERROR_STATUS[REASONS[b].code] || a.localeCompare(b),
  )
  for (const reason of reasons) {
    const { code, when } = REASONS[reason]
    lines.push(`| ${ERROR_STATUS[code]} | \`${code}\` | \`${reason}\` | ${when.replaceAll('|', '\\|')} |`)
  }
  lines.push(
    '',
    '## The reasons of each operation',
    '',
    'Besides its own, every operation can give the reasons that follow from how it is called: `invalid_field`',
    'always; `malformed_body`, `payload_too_large` and `json_required` with a body; the `key_*` reasons with a',
    'key (`key_expired` among them), and `session_ended` (with `csrf_token_invalid` for a write) through a console',
    'session (docs/console.md); `role_required` where some role may not call it (docs/roles.md);',
    '`rate_limited` where limits apply; `plan_required` for governance; `admin_key_required` for the',
    "admin key's operations; `database_unavailable` everywhere but the probes (`/healthz`, `/readyz`).",
    '',
    '| operation | method and path | access | its own reasons |',
    '|---|---|---|---|',
  )
  for (const operation of Object.values(ROUTES) as OperationSpec[]) {
    const standard = new Set(standardReasons(operation))
    const own = (operation.refusals ?? []).filter((reason) => !standard.has(reason))
    lines.push(
      `| \`${operation.operationId}\` | \`${operation.method.toUpperCase()} ${operation.path}\` | ${operation.access} | ${own.map((r) => `\`${r}\``).join(', ') || '—'} |`,
    )
  }
  return `${lines.join('\n')}\n`
}

describe('docs/errors.md', () => {
  it('lists every reason and the reasons of every operation, as the code declares them', () => {
    const expected = render()
    if (process.env.RWA_WRITE_DOCS === '1') writeFileSync(PAGE, expected)
    expect(readFileSync(PAGE, 'utf8')).toBe(expected)
  })
})
