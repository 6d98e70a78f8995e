import { Liquid } from 'liquidjs';

type TagImplOptions = Parameters<Liquid['registerTag']>[1];

/** Tags that read other templates: emails are self-contained, so they refuse at parse time. */
const fileTags = ['include', 'render', 'layout'] as const;

/** Defaults of one rendering: a runaway loop stops after this long, output stops growing at this size. */
export const defaultLimits = { renderMs: 1_000, outputLength: 5_000_000 } as const;

function sandboxed(escapeOutput: boolean): Liquid {
  const engine = new Liquid({
    // Templates come from users: no file system (an empty in-memory set), own properties only,
    // unknown filters are errors, and parsing, rendering time and memory are bounded.
    templates: {},
    relativeReference: false,
    ownPropertyOnly: true,
    strictFilters: true,
    strictVariables: false,
    parseLimit: 2_000_000,
    renderLimit: defaultLimits.renderMs,
    memoryLimit: 20_000_000,
    cache: false,
    greedy: false,
    ...(escapeOutput ? { outputEscape: 'escape' as const } : {}),
  });
  for (const name of fileTags) {
    const refuse: TagImplOptions = {
      parse() {
        throw new Error(`the ${name} tag is not available in emails`);
      },
      render() {
        return '';
      },
    };
    engine.registerTag(name, refuse);
  }
  return engine;
}

/** HTML: every `{{ }}` output is HTML-escaped (`| raw` opts out, for the author's own markup). */
export const htmlEngine = sandboxed(true);
/** Subject and plain text: values as they are. */
export const textEngine = sandboxed(false);
