import type { Command } from 'commander'
import { collect } from '../flags/flag.js'
import { countryCaps, maxHolders, transferWindows } from '../flags/parse.js'
import { from, to } from './governance.js'
import { command, declareGroup, declareOperation } from './operation-command.js'
import { applyCommand, importCommand, proofVerifyCommand } from './workflows.js'

/** `rwa tokens` (and their agent's commands), `rwa transfers`, `rwa proofs`, `rwa trust-bundle`, `rwa apply`. */
export function declareTokens(program: Command): void {
  const tokens = () => import('../commands/tokens.js')
  const agent = () => import('../commands/token-governance.js')
  const supply = () => import('../commands/supply.js')
  const token = { id: '<token_id>' }
  const holder = (help: string) => ({ holder_did: { help, prompt: 'Holder DID' } })
  const why = { reason: { help: 'why (kept in the token history)' } }
  const tok = program
    .command('tokens')
    .description('Tokenize credentialed assets, and act as their agent: pause, freeze, force, mint, burn, recover, rules')
  declareGroup(tok, {
    list: command({
      operation: 'listTokens',
      description: 'List tokens',
      flags: {
        jurisdiction: { help: "in this credential's jurisdiction" },
        owner_did: { help: 'owned by this DID' },
      },
      examples: ['rwa tokens list'],
      run: async () => (await tokens()).list,
    }),
    get: command({
      operation: 'getToken',
      description: 'Show a token, its holdings and governance history',
      args: token,
      examples: ['rwa tokens get tok_01JD...'],
      run: async () => (await tokens()).get,
    }),
    create: command({
      operation: 'tokenize',
      description: 'Tokenize the asset of an active credential (once per credential)',
      flags: {
        credential_id: { help: 'credential of the asset', prompt: 'Credential of the asset (cred_...)' },
        total_supply: { help: 'number of whole units', prompt: 'Total supply (whole units)' },
        symbol: { help: 'ticker, 1–12 upper-case letters or digits' },
      },
      examples: ['rwa tokens create --credential-id cred_01JD... --total-supply 1000 --symbol AUSTIN1'],
      run: async () => (await tokens()).create,
    }),
    history: command({
      operation: 'getTokenHistory',
      description: "Every event of a token's history, oldest first",
      args: token,
      examples: ['rwa tokens history tok_01JD... --all'],
      run: async () => (await agent()).history,
    }),
    pause: command({
      operation: 'pauseToken',
      description: 'Pause a token: every transfer is refused until unpaused',
      args: token,
      flags: why,
      examples: ['rwa tokens pause tok_01JD... --reason "corporate action"'],
      run: async () => (await agent()).pause,
    }),
    unpause: command({
      operation: 'unpauseToken',
      description: 'Unpause a paused token',
      args: token,
      flags: why,
      examples: ['rwa tokens unpause tok_01JD...'],
      run: async () => (await agent()).unpause,
    }),
    freeze: command({
      operation: 'freezeHolder',
      description: 'Freeze a holder (can neither send nor receive), or units of a holding',
      args: token,
      flags: { ...holder('the holder'), ...why },
      file: false,
      examples: [
        'rwa tokens freeze tok_01JD... --holder-did did:web:lion:bob --reason "sanctions hit"',
        'rwa tokens freeze tok_01JD... --holder-did did:web:acme:alice --jurisdiction US --amount 600',
      ],
      run: async () => (await agent()).freeze,
    }),
    unfreeze: command({
      operation: 'unfreezeHolder',
      description: 'Unfreeze a holder, or units of a holding',
      args: token,
      flags: { ...holder('the holder'), ...why },
      file: false,
      examples: ['rwa tokens unfreeze tok_01JD... --holder-did did:web:lion:bob'],
      run: async () => (await agent()).unfreeze,
    }),
    holdings: command({
      operation: 'listHoldings',
      description: 'Holdings of a token with their frozen units',
      args: token,
      flags: { holder_did: { help: 'of this holder' }, jurisdiction: { help: 'in this jurisdiction' } },
      examples: [
        'rwa tokens holdings tok_01JD...',
        'rwa tokens holdings tok_01JD... --holder-did did:web:lion:bob --json',
      ],
      run: async () => (await agent()).holdings,
    }),
    holders: command({
      operation: 'listHolders',
      description: "Holders of a token grouped by identity: each identity's total and its DIDs' units",
      args: token,
      examples: ['rwa tokens holders tok_01JD...', 'rwa tokens holders tok_01JD... --all --json'],
      run: async () => (await import('../commands/identities.js')).holders,
    }),
    'frozen-holders': command({
      operation: 'listFrozenHolders',
      description: 'DIDs frozen for a token as a whole (held units or not), in order',
      args: token,
      examples: ['rwa tokens frozen-holders tok_01JD...', 'rwa tokens frozen-holders tok_01JD... --all -q'],
      run: async () => (await agent()).frozenHolders,
    }),
    'force-transfer': command({
      operation: 'forcedTransfer',
      description:
        'Move units by authority (bypasses requirements, rules, freezes, pause); the recipient needs kyc',
      args: token,
      flags: {
        from_did: { help: 'whose units are taken', prompt: 'Take from (DID)' },
        from_jurisdiction: { ...from('where they are held'), prompt: 'From jurisdiction' },
        to_did: { help: 'who receives them', prompt: 'Give to (DID)' },
        to_jurisdiction: { ...to('where they go'), prompt: 'To jurisdiction' },
        amount: { help: 'whole units', prompt: 'Amount (whole units)' },
      },
      examples: [
        'rwa tokens force-transfer tok_01JD... --from-did did:web:lion:bob --from SG --to-did did:web:acme:alice --to US --amount 100 --reason "court order 2026-77" --yes',
      ],
      run: async () => (await agent()).forceTransfer,
    }),
    mint: command({
      operation: 'mintTokens',
      description: 'Create new units in a holding (rule max_supply caps the supply)',
      args: token,
      flags: {
        to_did: { help: 'who receives them', prompt: 'Mint to (DID)' },
        jurisdiction: { help: 'where they are held', prompt: 'Jurisdiction' },
        amount: { help: 'whole units', prompt: 'Amount (whole units)' },
        reason: { help: 'why (kept in the token history)', prompt: 'Reason' },
      },
      examples: [
        'rwa tokens mint tok_01JD... --to-did did:web:lion:bob --jurisdiction SG --amount 200 --reason "round 2" --yes',
      ],
      run: async () => (await supply()).mint,
    }),
    burn: command({
      operation: 'burnTokens',
      description: 'Take units of a holding out of existence (unfrozen units first)',
      args: token,
      flags: {
        from_did: { help: 'whose units are burnt', prompt: 'Burn from (DID)' },
        jurisdiction: { help: 'the holding they are taken from', prompt: 'Jurisdiction' },
        amount: { help: 'whole units', prompt: 'Amount (whole units)' },
        reason: { help: 'why (kept in the token history)', prompt: 'Reason' },
      },
      examples: [
        'rwa tokens burn tok_01JD... --from-did did:web:lion:bob --jurisdiction SG --amount 50 --reason redemption --yes',
      ],
      run: async () => (await supply()).burn,
    }),
    recover: command({
      operation: 'recoverIdentity',
      description: "Move a lost identity's holdings and freezes to a new DID that holds kyc where they are",
      args: token,
      flags: {
        lost_did: { help: 'the lost identity', prompt: 'Lost identity (DID)' },
        new_did: { help: 'the new identity', prompt: 'New identity (DID)' },
        reason: { help: 'why', prompt: 'Reason' },
      },
      file: false,
      examples: [
        'rwa tokens recover tok_01JD... --lost-did did:web:lion:bob --new-did did:web:lion:bob2 --reason "lost keys" --yes',
      ],
      run: async () => (await agent()).recover,
    }),
  })
  declareGroup(tok.command('rules').description("A token's transfer rules"), {
    set: command({
      operation: 'setTokenRules',
      description: 'Change rules: the flags given change those rules, the others stay; --file replaces all',
      args: token,
      flags: {
        max_balance_per_holder: { help: "cap on a recipient's total across jurisdictions" },
        max_holders: {
          flag: '--max-holders <n|J=N,...>',
          help: 'cap on holders in the target jurisdiction: one number, or per jurisdiction',
          parse: maxHolders,
          example: 'US=2000,SG=50',
        },
        lockup_until: { help: 'before this instant only forced transfers move the token' },
        max_transfer_amount: { help: 'largest amount of one transfer', example: '100' },
        daily_volume_per_holder: { help: "cap on a sender's approved volume per UTC day", example: '1000' },
        min_holding: { help: "each side's total after a transfer: 0 or at least this", example: '10' },
        transfer_windows: {
          flag: '--transfer-windows <S=N,...>',
          help: "caps on a sender's approved volume in sliding windows of S seconds (1-4)",
          parse: transferWindows,
          example: '3600=500,86400=2000',
        },
        lockup_days_after_receipt: { help: 'days units received by mint or transfer cannot move', example: '30' },
        max_supply: { help: 'cap on the supply a mint may reach', example: '1000000' },
        country_allow: {
          help: "only recipients whose identity's country is listed (assigned ISO 3166-1 alpha-2 codes or XK)",
          example: 'US,GB',
        },
        country_deny: {
          help: "no recipient whose identity's country is listed (assigned ISO 3166-1 alpha-2 codes or XK)",
          example: 'RU',
        },
        max_holders_per_country: {
          flag: '--max-holders-per-country <C=N,...>',
          help: 'cap on holder identities per country of the identity',
          parse: countryCaps,
          repeatable: true,
          example: 'US=2000,GB=500',
        },
        max_ownership_percent: {
          help: "cap on an identity's share of the supply over all its DIDs, in percent",
          example: '10',
        },
        allowed_categories: {
          help: "only recipients whose identity's category is listed",
          example: 'accredited,institutional',
        },
        ...why,
      },
      options: (c) => c.option('--clear <names>', 'clear these rules (comma-separated or repeated)', collect),
      examples: [
        'rwa tokens rules set tok_01JD... --max-balance-per-holder 500 --max-holders SG=50 --reason prospectus',
        'rwa tokens rules set tok_01JD... --country-allow US,GB --max-holders-per-country US=2000 --max-ownership-percent 10',
        'rwa tokens rules set tok_01JD... --clear lockup_until',
      ],
      run: async () => (await agent()).setRules,
    }),
    get: command({
      operation: 'getToken',
      description: "Show a token's transfer rules",
      args: token,
      examples: ['rwa tokens rules get tok_01JD... --json'],
      run: async () => (await agent()).getRules,
    }),
  })

  const transfers = () => import('../commands/transfers.js')
  // `request` and `check` take the same flags: check's token is its path, given as --token-id.
  const transfer = {
    id: { flag: '--token-id', help: 'token to move', prompt: 'Token (tok_...)' },
    token_id: { help: 'token to move', prompt: 'Token (tok_...)' },
    from_jurisdiction: { ...from('source jurisdiction'), prompt: 'From jurisdiction' },
    to_jurisdiction: { ...to('target jurisdiction'), prompt: 'To jurisdiction' },
    recipient_did: { help: 'recipient', prompt: 'Recipient DID' },
    amount: { help: 'whole units to move', prompt: 'Amount (whole units)', example: '250' },
    sender_did: { help: "whose holding moves (default the token's owner)" },
  }
  const tx = program.command('transfers').description('Request and read cross-border transfers')
  importCommand(tx, 'transfers', 'token_id,from_jurisdiction,to_jurisdiction,recipient_did,amount')
  declareGroup(tx, {
    list: command({
      operation: 'listTransfers',
      description: 'List transfers',
      flags: { token_id: { help: 'of this token' } },
      examples: ['rwa transfers list --status rejected'],
      run: async () => (await transfers()).list,
    }),
    get: command({
      operation: 'getTransfer',
      description: 'Show a transfer with its compliance proof',
      args: { id: '<transfer_id>' },
      examples: ['rwa transfers get tx_01JD...'],
      run: async () => (await transfers()).get,
    }),
    request: command({
      operation: 'requestTransfer',
      description: 'Request a transfer; exits 6 when compliance rejects it',
      flags: transfer,
      examples: [
        'rwa transfers request --token-id tok_01JD... --from US --to SG --recipient-did did:web:acme:bob --amount 100',
      ],
      run: async () => (await transfers()).request,
    }),
    check: command({
      operation: 'canTransfer',
      description: 'Would this transfer be approved now? Records nothing; exits 6 when it would be rejected',
      flags: transfer,
      file: true,
      examples: [
        'rwa transfers check --token-id tok_01JD... --from US --to SG --recipient-did did:web:acme:bob --amount 100',
      ],
      run: async () => (await transfers()).check,
    }),
  })

  const proofs = () => import('../commands/proofs.js')
  const prf = program.command('proofs').description('Fetch and verify compliance proofs')
  declareOperation(prf, 'get', {
    operation: 'getProof',
    description: 'Show a compliance proof',
    args: { id: '<proof_id>' },
    examples: ['rwa proofs get prf_01JD...'],
    run: async () => (await proofs()).get,
  })
  proofVerifyCommand(prf)
  declareOperation(program, 'trust-bundle', {
    operation: 'getTrustBundle',
    description:
      "Print the organization's trust bundle (proof keys and issuers, JSON), to verify offline with --trust",
    examples: ['rwa trust-bundle > trust.json', 'rwa proofs verify transfer.json --trust trust.json'],
    run: async () => (await proofs()).trustBundle,
  })
  declareOperation(prf, 'jwks', {
    operation: 'getProofKeys',
    description: "Print the service's public proof keys (JWKS), to save for offline verification",
    examples: ['rwa proofs jwks > jwks.json'],
    run: async () => (await proofs()).jwks,
  })
  applyCommand(program)
}
