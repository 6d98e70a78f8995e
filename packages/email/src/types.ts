/** The parts of an email that rendering reads. Subject, preheader and HTML may hold Liquid merge tags. */
export interface RenderableEmail {
  subject: string;
  preheader?: string;
  html: string;
  fromEmail?: string;
}

/** A person as templates see it: first-class fields and every custom field by name. */
export type RenderPerson = Record<string, unknown>;

/** The account fields templates may use: `{{ account.name }}`, `{{ account.mailingAddress }}`, `{{ account.site }}`. */
export interface RenderAccount {
  name: string | null;
  mailingAddress: string | null;
  site: string | null;
}

/** Rewrites one http(s) link of the rendered HTML (click tracking); `index` counts the links in order. */
export type LinkRewriter = (url: string, index: number) => string;

export interface RenderLimits {
  /** Milliseconds one rendering may take before it stops with a template error. */
  renderMs: number;
  /** Characters the rendered HTML may reach. */
  outputLength: number;
}

export interface RenderOptions {
  /** The Message-ID header, angle brackets included: `<id@host>`. */
  messageId: string;
  /** `{{ unsubscribe_url }}` and the https URI of List-Unsubscribe. */
  unsubscribeUrl?: string;
  /** The mailto URI of List-Unsubscribe (`mailto:unsubscribe@host?subject=...`). */
  unsubscribeMailto?: string;
  preferencesUrl?: string;
  viewInBrowserUrl?: string;
  /** Link rewriting (tracking); absent means links stay as written. */
  rewriteLink?: LinkRewriter;
  /** Open tracking: a 1x1 image with this source, just before `</body>`; absent means no pixel. */
  openPixelUrl?: string;
  /** Automatic UTM tagging (the account's linkUTMs): links get utm_source=herald, utm_medium=email and this campaign. */
  utmCampaign?: string;
  limits?: Partial<RenderLimits>;
}

export interface RenderedMessage {
  subject: string;
  html: string;
  text: string;
  /** Message-ID, and List-Unsubscribe / List-Unsubscribe-Post when an unsubscribe link is given. */
  headers: Record<string, string>;
}
