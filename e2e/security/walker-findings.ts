// What a walk reports: payloads that ran, pages that stopped answering, and what each state showed.

export interface Finding {
  kind: 'hook' | 'dialog' | 'marker request' | 'csp' | 'page error';
  /** The payload's id, when the finding names one. */
  id: number | null;
  /** The page state the walker was in (its label). */
  state: string;
  detail: string;
}

/** A state where the page stopped answering (a hung renderer): the walker opened a fresh page and went on. */
export interface Stall {
  state: string;
  /** The call that did not return. */
  call: string;
  url: string;
}

export interface VisitResult {
  state: string;
  /** Payloads whose text the page showed (in any frame, as text or in a field). */
  shown: number;
  /** What a page that showed no payload showed instead (its first 300 characters), for the failure message. */
  sample?: string;
}
