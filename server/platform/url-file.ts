import { renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'

/*
 * `--url-file FILE` (issue 22): how a script learns the address of a server it started, without
 * reading its log (JSON when piped, pretty on a terminal) or guessing the port. The file holds the URL
 * and a newline, and exists exactly while the server serves: written once it listens and is ready,
 * by writing a temporary file beside it and renaming it (a reader never sees half a URL), and removed
 * on a clean shutdown.
 */

/** `--url-file` names a file the server cannot write (its directory is missing, or not writable). */
export class UrlFileError extends Error {
  constructor(
    readonly path: string,
    why: string,
  ) {
    super(`cannot write the URL file ${path} (--url-file): ${why}; nothing was started or created`)
    this.name = 'UrlFileError'
  }
}

/**
 * Checked before the server binds its port or opens the database: the file's directory exists. A file
 * already there (left by a server that did not shut down cleanly) is removed, so that whoever waits
 * for the file never reads the address of a dead server.
 */
export function prepareUrlFile(path: string): void {
  const directory = dirname(path)
  let isDirectory = false
  try {
    isDirectory = statSync(directory).isDirectory()
  } catch {}
  if (!isDirectory) throw new UrlFileError(path, `the directory ${directory} does not exist`)
  try {
    rmSync(path, { force: true })
  } catch (error) {
    throw new UrlFileError(path, (error as Error).message)
  }
}

/** Writes `url` into `path` atomically: a temporary file in the same directory, then a rename. */
export function writeUrlFile(path: string, url: string): void {
  const temporary = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`)
  try {
    writeFileSync(temporary, `${url}\n`, { mode: 0o644 })
    renameSync(temporary, path)
  } catch (error) {
    rmSync(temporary, { force: true })
    throw new UrlFileError(path, (error as Error).message)
  }
}

/** Removes the file on a clean shutdown; one already gone is fine. */
export function removeUrlFile(path: string): void {
  rmSync(path, { force: true })
}
