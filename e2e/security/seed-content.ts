import { encodeInputFields } from '@herald/contracts';
import { sealToken } from '../../apps/server/src/lib/sealed-tokens.ts';
import { e2eSessionSecret } from '../support/global-setup.ts';
import { sql } from '../support/browser.ts';
import { until } from '../support/until.ts';
import { corpus, fitting, pick, type Payload } from './payloads.ts';
import { inParallel, runTag, slices, type Seeder } from './seed-support.ts';

export interface ContentSeed {
  /** Emails to open in the editor and preview, by the editor they are written in. */
  emailIds: {
    html: number;
    richtext: number;
    richtextState: number;
    dragdrop: number;
    dragdropState: number;
  };
  broadcastIds: number[];
  /** Flows whose canvas holds steps with payloads in every setting. */
  flowIds: number[];
  preferenceToken: string;
  invitationToken: string | null;
}

/** The email HTML of a slice: each payload in a paragraph on a line of its own (line 2 onwards; the html field is HTML by design). */
const htmlOf = (payloads: Payload[]) =>
  `<!DOCTYPE html><html><head><title>Hostile</title></head><body>\n${payloads.map((p) => `<p>${p.text}</p>`).join('\n')}\n<p><a href="{{ unsubscribe_url }}">Unsubscribe</a></p></body></html>`;

/** A rich-text document that puts payloads in text, in a link's address and in attributes no editor schema knows. */
function richTextState(payloads: Payload[]) {
  return {
    type: 'doc',
    content: payloads.map((p) => ({
      type: 'paragraph',
      attrs: { onclick: `__heraldXss(${p.id})`, style: `background:url(http://xss-marker.invalid/${p.id})` },
      content: [
        {
          type: 'text',
          text: p.text,
          marks: [{ type: 'link', attrs: { href: `javascript:__heraldXss(${p.id})`, target: '_blank' } }],
        },
        { type: 'hardBreak' },
        { type: 'image', attrs: { src: `javascript:alert(${p.id})` } },
      ],
    })),
  };
}

/** A drag-and-drop project whose components carry handlers, scripts and javascript: links directly, not through HTML. */
function dragDropState(payloads: Payload[]) {
  const components = payloads.flatMap((p) => [
    { tagName: 'img', attributes: { src: 'x', onerror: `__heraldXss(${p.id})` } },
    { type: 'text', content: p.text },
    { tagName: 'script', content: `__heraldXss(${p.id})` },
    { type: 'link', attributes: { href: `javascript:__heraldXss(${p.id})` }, content: 'link' },
    { tagName: 'iframe', attributes: { srcdoc: `<script>__heraldXss(${p.id})</script>` } },
  ]);
  return { assets: [], styles: [], pages: [{ frames: [{ component: { type: 'wrapper', components } }] }] };
}

/** Sender, emails in every editor, broadcasts, flows with every kind of step, webhook endpoints; and the public tokens. */
export async function seedContent(
  s: Seeder,
  people: { heavyPersonIds: number[]; fieldNames: string[]; categoryIds: number[] },
): Promise<ContentSeed> {
  const sender = `sender-${runTag}@example.com`;
  await sql(
    "insert into sender_addresses (account_id, email, status, verified_at) values ($1, $2, 'verified', now())",
    [s.accountId, sender],
  );

  // Emails in each editor, carrying the whole corpus in their HTML; names, subjects, preheaders and sender names.
  const [htmlPart, richPart, dragPart] = slices(3);
  /**
   * Creates an email; Liquid the server cannot parse is refused with its line, so the payload on that line is left
   * out (counted as refused) and the rest tried again, and a subject it refuses is swapped for the next payload.
   */
  const make = async (
    kind: string,
    all: Payload[],
    index: number,
    editor: { type: string; state: unknown },
  ) => {
    let payloads = all;
    let subjectIndex = index + 1;
    for (let attempt = 0; attempt < 80; attempt++) {
      const html = htmlOf(payloads);
      const head = {
        name: pick(index).text,
        subject: pick(subjectIndex, 500).text,
        preheader: pick(index + 2, 500).text,
        fromName: pick(index + 3).text,
      };
      const answer = await s.call('POST', '/v1/emails', {
        ...head,
        fromEmail: sender,
        categoryId: people.categoryIds[0],
        html,
        editor: { ...editor, html },
      });
      if (answer.status < 300) {
        s.note(kind, payloads);
        s.note('email.name+subject+preheader+fromName', [
          pick(index),
          pick(subjectIndex, 500),
          pick(index + 2, 500),
          pick(index + 3),
        ]);
        return answer.body.email.id as number;
      }
      const extra = answer.body?.extra as { part?: string; line?: number } | undefined;
      if (answer.status !== 422 || !extra?.part)
        throw new Error(
          `the ${kind} email was refused: ${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}`,
        );
      if (extra.part === 'html' && extra.line && extra.line >= 2 && extra.line - 2 < payloads.length) {
        s.refused.set(`${kind}: invalid Liquid`, (s.refused.get(`${kind}: invalid Liquid`) ?? 0) + 1);
        s.refusedWhy.set(`${kind}: invalid Liquid`, `422 ${String(answer.body?.message)}`);
        payloads = payloads.filter((_, i) => i !== extra.line! - 2);
      } else if (extra.part === 'subject') {
        subjectIndex++;
      } else {
        throw new Error(`the ${kind} email was refused: ${JSON.stringify(answer.body).slice(0, 300)}`);
      }
    }
    throw new Error(`the ${kind} email kept being refused`);
  };
  const emailIds = {
    html: await make('email.html (code editor)', corpus, 400, { type: 'html', state: null }),
    richtext: await make('email.html (rich text)', richPart!, 404, { type: 'richtext', state: null }),
    richtextState: await make('email.editor.state (rich text)', richPart!.slice(0, 30), 408, {
      type: 'richtext',
      state: richTextState(richPart!.slice(0, 30)),
    }),
    dragdrop: await make('email.html (drag and drop)', dragPart!, 412, { type: 'dragdrop', state: null }),
    dragdropState: await make('email.editor.state (drag and drop)', htmlPart!.slice(0, 30), 416, {
      type: 'dragdrop',
      state: dragDropState(htmlPart!.slice(0, 30)),
    }),
  };
  // More emails, so the list shows many names and subjects.
  await inParallel(
    Array.from({ length: 30 }, (_, i) => i),
    4,
    async (i) => {
      const p = pick(500 + i * 4);
      await s.write(
        'email.name+subject+preheader+fromName',
        [p, pick(501 + i * 4, 500), pick(502 + i * 4, 500), pick(503 + i * 4)],
        'POST',
        '/v1/emails',
        {
          name: p.text,
          subject: pick(501 + i * 4, 500).text,
          preheader: pick(502 + i * 4, 500).text,
          fromName: pick(503 + i * 4).text,
          fromEmail: sender,
          html: `<p>${p.text}</p>`,
        },
      );
    },
  );

  // Broadcasts: names, audiences of payload tags, A/B variant names and subjects.
  const broadcastIds: number[] = [];
  const tags = fitting(200);
  for (let i = 0; i < 12; i++) {
    const audienceTags = tags.slice(i * 20, i * 20 + 20);
    const made = await s.write(
      'broadcast.name+audience.tags',
      [pick(600 + i), ...audienceTags],
      'POST',
      '/v1/broadcasts',
      {
        name: pick(600 + i).text,
        emailId: emailIds.html,
        audience: { type: 'tags', tags: audienceTags.map((p) => p.text), excludeTags: [pick(620 + i).text] },
      },
    );
    if (made) broadcastIds.push(made.item.id);
  }
  const variants = fitting(500).slice(0, 4);
  await s
    .write('broadcast.abTest.subjects', variants, 'POST', '/v1/broadcasts', {
      name: pick(640).text,
      emailId: emailIds.html,
      audience: { type: 'all' },
      abTest: {
        variants: variants.map((p, i) => ({ name: String.fromCharCode(65 + i), subject: p.text })),
        testShare: 20,
        metric: 'opens',
        waitHours: 4,
      },
    })
    .then((made) => made && broadcastIds.unshift(made.item.id));

  // Flows: names, and steps with payloads in every text setting, linked with payload branch names.
  const flowIds: number[] = [];
  for (let i = 0; i < 10; i++) {
    const made = await s.write('flow.name', [pick(700 + i)], 'POST', '/v1/integrations', {
      name: pick(700 + i).text,
    });
    if (made) flowIds.push(made.integration.id);
  }
  const short = fitting(40);
  // One trigger per flow (a flow has one), each kind in a flow of its own; the first three flows get every action.
  const triggersOf = (k: number): Array<[string, Record<string, unknown>, Payload[]]> => [
    ['/added-tag', { tag: pick(720 + k).text }, [pick(720 + k)]],
    ['/event', { name: pick(721 + k).text }, [pick(721 + k)]],
    ['/page-visited-trigger', { url: pick(722 + k, 2000).text, match: 'contains' }, [pick(722 + k, 2000)]],
    ['/site-form-submitted', { form: pick(723 + k, 500).text }, [pick(723 + k, 500)]],
    ['/submitted-form', { form: pick(724 + k, 500).text }, [pick(724 + k, 500)]],
    ['/dateFieldTrigger', { field: people.fieldNames[0], offsetDays: 0, time: '09:00' }, []],
  ];
  const actionsOf = (k: number): Array<[string, Record<string, unknown>, Payload[]]> => [
    ['/send', { email: { id: emailIds.html } }, []],
    [
      '/change-field',
      { field: people.fieldNames[1], value: pick(725 + k, 2000).text },
      [pick(725 + k, 2000)],
    ],
    ['/add-tag', { tag: pick(726 + k).text }, [pick(726 + k)]],
    ['/remove-tag', { tag: pick(727 + k).text }, [pick(727 + k)]],
    [
      '/ab-test',
      {
        variants: [
          { name: short[k % short.length]!.text, weight: 50 },
          { name: short[(k + 1) % short.length]!.text, weight: 50 },
        ],
      },
      [short[k % short.length]!, short[(k + 1) % short.length]!],
    ],
    [
      '/email-notification',
      { to: ['team@example.com'], subject: pick(728 + k).text, body: pick(729 + k, 5000).text },
      [pick(728 + k), pick(729 + k, 5000)],
    ],
    ['/slack-notification', { text: pick(730 + k, 3000).text }, [pick(730 + k, 3000)]],
    [
      '/send-webhook',
      { url: `https://hooks.example.com/${encodeURIComponent(pick(731 + k).text)}` },
      [pick(731 + k)],
    ],
    [
      '/check-field',
      {
        condition: {
          type: 'field',
          field: people.fieldNames[2],
          operator: 'equals',
          value: pick(732 + k, 500).text,
        },
      },
      [pick(732 + k, 500)],
    ],
  ];
  for (const [k, flowId] of flowIds.slice(0, 6).entries()) {
    const stepIds: number[] = [];
    const steps = [triggersOf(k * 20)[k]!, ...(k < 3 ? actionsOf(k * 20) : [])];
    for (const [operationKey, config, payloads] of steps) {
      const made = await s.write(`flow.step ${operationKey}`, payloads, 'POST', '/v1/steps/', {
        flowId,
        operationKey,
        inputFields: encodeInputFields(config),
        coordinates: { x: (stepIds.length % 4) * 320, y: Math.floor(stepIds.length / 4) * 200 },
      });
      if (made) stepIds.push(made.step.id);
    }
    for (let i = 1; i < stepIds.length; i++) {
      const condition = steps[i - 1]![0] === '/ab-test' ? short[k % short.length]!.text : null;
      await s.call('POST', '/v1/links/', { source: stepIds[i - 1], target: stepIds[i], condition });
    }
  }

  // Outgoing webhook endpoints: descriptions, and a payload in the address's path.
  for (let i = 0; i < 5; i++) {
    await s.write('webhookEndpoint.description', [pick(800 + i)], 'POST', '/v1/webhook-endpoints', {
      url: `http://127.0.0.1:9/hook/${encodeURIComponent(pick(810 + i).text)}`,
      events: ['person.created'],
      description: pick(800 + i).text,
    });
  }

  // The public pages' tokens: a person's preference centre, and a team member's invitation from the mailbox.
  const preferenceToken = sealToken(
    { a: s.accountId, p: people.heavyPersonIds[0], s: 'test' },
    e2eSessionSecret,
    'preferences',
    3600,
  );
  return { emailIds, broadcastIds, flowIds, preferenceToken, invitationToken: await invitationToken(s) };
}

/** The token of the first invitation the seeding sent, read from the built-in mailbox. */
async function invitationToken(s: Seeder): Promise<string | null> {
  const token = async () => {
    const list = await s.call('GET', '/v1/dev/mailbox', undefined, {}, false);
    const messages = (list.body?.messages ?? list.body?.items ?? []) as Array<{
      id: number;
      to: string | string[];
    }>;
    const invite = messages.find((m) => String(m.to).includes(`mate-${runTag}-0@`));
    if (!invite) return null;
    const message = await s.call('GET', `/v1/dev/mailbox/${invite.id}`, undefined, {}, false);
    const match = /accept-invite\?token=([^"&<\s]+)/.exec(JSON.stringify(message.body));
    return match ? decodeURIComponent(match[1]!.replaceAll('&amp;', '&')) : null;
  };
  // No invitation within 15 s: the walk goes on without its page (null), as it always has.
  return until(token, { timeout: 15_000, interval: 300, message: 'the invitation in the mailbox' }).catch(
    () => null,
  );
}
