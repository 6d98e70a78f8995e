/**
 * A drag-and-drop email's saved project is a client's word (any API client can store any JSON as the editor's
 * state), and the builder puts its components into its canvas, a frame of the app's own origin: a component with an
 * `onerror` attribute, a `script` tag or property, raw `content` or a frame `head` entry would run there. Before the
 * builder sees a project, this keeps only what markup the builder's own HTML parser would also keep: no script-capable
 * elements, no event handler attributes, no script URLs, no component scripts, and raw `content` goes back through
 * that parser (as `components`, which the builder parses with scripts and unsafe attributes removed).
 */

/** Elements that run, embed or redirect a document; an email never needs them in the builder. */
const blockedTags = new Set([
  'script',
  'iframe',
  'frame',
  'frameset',
  'object',
  'embed',
  'applet',
  'base',
  'meta',
  'link',
  'noscript',
  'template',
  'portal',
  'set',
  'animate',
  'animatemotion',
  'animatetransform',
  'handler',
  'listener',
  'use',
]);
/** Component properties the builder runs as script in the canvas. */
const scriptKeys = new Set(['script', 'script-export', 'script-props', 'head']);

/** A URL that runs script or renders a document of its own: javascript:, vbscript:, and data: other than images. */
function isUnsafeUrl(value: string): boolean {
  // Browsers ignore control characters and whitespace inside the scheme; entities are already decoded here.
  const compact = value.replace(/[\u0000-\u0020\u007f-\u009f]/g, '').toLowerCase();
  return (
    /^(javascript|vbscript|livescript):/.test(compact) ||
    (compact.startsWith('data:') && !/^data:image\/(png|gif|jpe?g|webp)[;,]/.test(compact))
  );
}

function isUnsafeAttribute(name: string, value: unknown): boolean {
  const lower = name.trim().toLowerCase();
  if (lower.startsWith('on') || lower === 'srcdoc' || lower === 'formaction' || lower === 'http-equiv')
    return true;
  if (typeof value !== 'string') return false;
  if (lower === 'style') return /expression\s*\(|javascript:|-moz-binding|behavior\s*:/i.test(value);
  return isUnsafeUrl(value);
}

/** Component types of the builder that are such elements (its `link` type is an ordinary `<a>` and stays). */
const blockedTypes = new Set(['script', 'iframe', 'frame', 'object', 'embed', 'applet']);

function isBlocked(node: Record<string, unknown>): boolean {
  const lower = (value: unknown) => (typeof value === 'string' ? value.trim().toLowerCase() : '');
  return (
    blockedTags.has(lower(node.tagName)) ||
    blockedTags.has(lower(node.tag)) ||
    blockedTypes.has(lower(node.type))
  );
}

function cleanAttributes(attributes: unknown): Record<string, unknown> {
  if (!attributes || typeof attributes !== 'object' || Array.isArray(attributes)) return {};
  return Object.fromEntries(
    Object.entries(attributes as Record<string, unknown>).filter(
      ([name, value]) => !isUnsafeAttribute(name, value),
    ),
  );
}

function cleanNode(node: Record<string, unknown>): Record<string, unknown> | null {
  if (isBlocked(node)) return null;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (scriptKeys.has(key)) continue;
    if (key === 'attributes') out.attributes = cleanAttributes(value);
    else out[key] = cleanValue(value);
  }
  // Raw HTML content (a text node's content is text and is written as text) goes through the builder's parser.
  if (typeof out.content === 'string' && out.type !== 'textnode' && /[<&]/.test(out.content)) {
    const html = out.content;
    delete out.content;
    const children = out.components;
    out.components =
      children === undefined || (Array.isArray(children) && children.length === 0)
        ? html
        : [{ components: html }, ...(Array.isArray(children) ? children : [children])];
  }
  return out;
}

function cleanValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(cleanValue).filter((item) => item !== null);
  if (value && typeof value === 'object') return cleanNode(value as Record<string, unknown>);
  return value;
}

/** The project with everything that could run in the builder's canvas taken out; null stays null. */
export function safeProjectData<T>(project: T): T {
  if (!project || typeof project !== 'object') return project;
  return (cleanValue(project) ?? {}) as T;
}
