/*
 * Counts in prose, for the CLI's messages and the notes of what both the CLI and the server share
 * (src/tlog): free of both.
 */

/** `1 token`, `2 tokens`: a count and its noun, singular for exactly one. */
export const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`
