/** The part of parse-prometheus-text-format the tests use (it ships no type declarations). */
declare module 'parse-prometheus-text-format' {
  interface Sample {
    labels?: Record<string, string>;
    value?: string;
    /** Histograms: each bucket's upper bound (`le`) with its count. */
    buckets?: Record<string, string>;
    count?: string;
    sum?: string;
  }
  interface Family {
    name: string;
    help: string;
    type: 'COUNTER' | 'GAUGE' | 'HISTOGRAM' | 'SUMMARY' | 'UNTYPED';
    metrics: Sample[];
  }
  /** Throws on a line that is not Prometheus' text format. */
  export default function parsePrometheusTextFormat(text: string): Family[];
}
