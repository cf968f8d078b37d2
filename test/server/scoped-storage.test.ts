import { setTimeout as sleep } from 'node:timers/promises'
import { describe, expect, it } from 'vitest'
import { ScopedStorage } from '../../server/platform/scoped-storage.js'

/*
 * The storage of the write scopes, held connections and rounds of outside work
 * (server/platform/scoped-storage.ts): a flow reads its own store across awaits, whatever other scopes
 * start and end meanwhile, each ScopedStorage its own slot of one AsyncLocalStorage; once no scope of
 * any of them runs the storage is disabled, so async_hooks stop costing every promise of the process.
 */

describe('ScopedStorage', () => {
  it('gives each flow its own store across awaits while other scopes start and end', async () => {
    const storage = new ScopedStorage<string>()
    const seen: string[] = []
    const flow = (name: string, waits: number[]) =>
      storage.run(name, async () => {
        for (const ms of waits) {
          await sleep(ms)
          // A promise made after another scope ended (and maybe disabled the storage) still reads it.
          await Promise.resolve()
          seen.push(`${name}:${storage.getStore()}`)
        }
        return name
      })
    // b ends first, c starts after a and b ended, d inside c's lifetime.
    const a = flow('a', [5, 20])
    const b = flow('b', [1])
    expect(await Promise.all([a, b])).toEqual(['a', 'b'])
    expect(storage.active).toBe(false)
    expect(ScopedStorage.enabled).toBe(false)
    expect(storage.getStore()).toBeUndefined()
    const c = flow('c', [10, 10])
    const d = flow('d', [1])
    expect(storage.active).toBe(true)
    await Promise.all([c, d])
    expect(seen.sort()).toEqual(['a:a', 'a:a', 'b:b', 'c:c', 'c:c', 'd:d'])
    expect(ScopedStorage.enabled).toBe(false)
  })

  it('settles as its function does, rejections included, and is disabled after', async () => {
    const storage = new ScopedStorage<number>()
    await expect(
      storage.run(1, async () => {
        await sleep(1)
        throw new Error('refused')
      }),
    ).rejects.toThrow('refused')
    expect([storage.active, ScopedStorage.enabled]).toEqual([false, false])
  })

  it('exit runs with no store inside a scope, and the scope reads its store again after', async () => {
    const storage = new ScopedStorage<string>()
    await storage.run('w', async () => {
      expect(storage.exit(() => storage.getStore())).toBeUndefined()
      await sleep(1)
      expect(storage.getStore()).toBe('w')
    })
    // Outside every scope exit just runs its function.
    expect(storage.exit(() => 42)).toBe(42)
  })

  it('keeps the stores of several storages apart in one flow: each reads its own, nested or not', async () => {
    const write = new ScopedStorage<string>()
    const held = new ScopedStorage<{ n: number }>()
    const round = new ScopedStorage<string>()
    const connection = { n: 1 }
    const seen = await write.run('outer write', () =>
      held.run(connection, async () => {
        await sleep(1)
        const inner = await round.run('round', async () => {
          await Promise.resolve()
          // A store is shared by reference, as the held connection's holder is mutated in place.
          connection.n = 2
          return [write.getStore(), held.getStore()?.n, round.getStore()]
        })
        // The round ended; the write and the connection are still the flow's.
        const after = [write.getStore(), held.getStore()?.n, round.getStore()]
        // exit clears one slot only, for what runs inside it: its awaits included (a limit's event
        // reaches the connection only after some).
        const exited = held.exit(() => [write.getStore(), held.getStore(), round.getStore()])
        const exitedAcrossAwaits = await held.exit(async () => {
          await sleep(1)
          await Promise.resolve()
          return [write.getStore(), held.getStore()]
        })
        // The same storage nested: the inner scope's store, then the outer's again.
        const nested = await write.run('inner write', async () => {
          await sleep(1)
          return write.getStore()
        })
        return {
          inner,
          after,
          exited,
          exitedAcrossAwaits,
          nested,
          again: write.getStore(),
          held: held.getStore()?.n,
        }
      }),
    )
    expect(seen).toEqual({
      inner: ['outer write', 2, 'round'],
      after: ['outer write', 2, undefined],
      exited: ['outer write', undefined, undefined],
      exitedAcrossAwaits: ['outer write', undefined],
      nested: 'inner write',
      again: 'outer write',
      held: 2,
    })
    expect([write.active, held.active, round.active, ScopedStorage.enabled]).toEqual([
      false,
      false,
      false,
      false,
    ])
  })

  it('stays enabled while a scope of any storage runs, and is disabled when the last one settles', async () => {
    const first = new ScopedStorage<string>()
    const second = new ScopedStorage<string>()
    let releaseSecond: () => void = () => {}
    const secondDone = second.run('b', async () => {
      await new Promise<void>((resolve) => (releaseSecond = resolve))
      // first's scope ended meanwhile: second's flow still reads its own store.
      return second.getStore()
    })
    await first.run('a', async () => {
      await sleep(1)
    })
    // first's scopes all ended, second's still runs: the one storage is still on, for second's flow.
    expect([first.active, second.active, ScopedStorage.enabled]).toEqual([false, true, true])
    releaseSecond()
    expect(await secondDone).toBe('b')
    expect(ScopedStorage.enabled).toBe(false)
  })
})
