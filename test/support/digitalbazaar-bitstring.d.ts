/** The part of @digitalbazaar/bitstring (plain JavaScript) the status-list tests use. */
declare module '@digitalbazaar/bitstring' {
  export class Bitstring {
    constructor(options: { length?: number; buffer?: Uint8Array; leftToRightIndexing?: boolean })
    readonly length: number
    get(position: number): boolean
    static decodeBits(options: { encoded: string }): Promise<Uint8Array>
  }
}
