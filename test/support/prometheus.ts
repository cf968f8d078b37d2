import {
  getMetricsFromIterator,
  type PromData,
  type PromHistogramData,
  type PromMetrics,
} from 'prom2javascript'

/** A scrape parsed by a Prometheus text-format parser (not by the code that wrote it). */
export class Scrape {
  private constructor(readonly families: PromMetrics) {}

  static async parse(text: string): Promise<Scrape> {
    // The format allows NaN samples (prom-client writes `Nan` for a Node.js gauge with no observation
    // yet); prom2javascript reads only numbers and +Inf, so those samples are left out. rwa's own
    // metrics never write NaN.
    const lines = text.split('\n').filter((line) => !/^\w+(\{.*\})?\s+nan$/i.test(line))
    return new Scrape(await getMetricsFromIterator(lines[Symbol.iterator]()))
  }

  /** The value of the counter or gauge sample with exactly these labels; 0 when it is absent. */
  value(name: string, labels: Record<string, string> = {}): number {
    const family = this.families[name]
    if (!family) return 0
    const sample = (family.data as PromData[]).find((d) => sameLabels(d.labels, labels))
    return sample?.value ?? 0
  }

  /** The histogram series with exactly these labels, or undefined. */
  histogram(name: string, labels: Record<string, string> = {}): PromHistogramData | undefined {
    const family = this.families[name]
    return (family?.data as PromHistogramData[] | undefined)?.find((d) => sameLabels(d.labels, labels))
  }
}

function sameLabels(a: Record<string, string>, b: Record<string, string>): boolean {
  const keys = Object.keys(a)
  return keys.length === Object.keys(b).length && keys.every((k) => a[k] === b[k])
}
