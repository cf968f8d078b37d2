import { setTimeout as sleep } from 'node:timers/promises'
import { describe, expect, it } from 'vitest'
import { ScopedStorage } from '../../server/platform/scoped-storage.js'

/*
 * The storage of the write scopes and held connections (server/platform/scoped-storage.ts): a flow reads its
 * own store across awaits, whatever other scopes start and end meanwhile, and once no scope runs the
 * storage is disabled, so async_hooks stop costing every promise of the process.
 */

const enabled = (storage: ScopedStorage<unknown>) =>
  (storage as unknown as { storage: { enabled: boolean } }).storage.enabled

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
    expect(enabled(storage)).toBe(false)
    expect(storage.getStore()).toBeUndefined()
    const c = flow('c', [10, 10])
    const d = flow('d', [1])
    expect(storage.active).toBe(true)
    await Promise.all([c, d])
    expect(seen.sort()).toEqual(['a:a', 'a:a', 'b:b', 'c:c', 'c:c', 'd:d'])
    expect(enabled(storage)).toBe(false)
  })

  it('settles as its function does, rejections included, and is disabled after', async () => {
    const storage = new ScopedStorage<number>()
    await expect(
      storage.run(1, async () => {
        await sleep(1)
        throw new Error('refused')
      }),
    ).rejects.toThrow('refused')
    expect([storage.active, enabled(storage)]).toEqual([false, false])
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
})
