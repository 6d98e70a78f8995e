import { corpus, fitting, pick, type Payload } from './payloads.ts';
import { allFitting, inParallel, runTag, slices, type Seeder } from './seed-support.ts';
import { until } from '../support/until.ts';

export interface PeopleSeed {
  /** People whose page shows many payloads (fields, tags, events, form submissions, import values). */
  heavyPersonIds: number[];
  /** Segments worth opening (their conditions name payload tags, events, fields and pages). */
  segmentIds: number[];
  importIds: number[];
  categoryIds: number[];
  fieldNames: string[];
  writeKey: string;
}

/** Email local parts with the few markup characters an address allows (the server accepts letters, digits, ' + - _ .). */
const localParts = (id: number) => [`x'+'${id}+`, `x'-'__heraldxss_${id}_`, `'${id}'`];

/** The account, its sub-accounts and team, and everything about people: fields, tags, people, events, segments, folders, imports, categories, suppressions. */
export async function seedPeople(s: Seeder): Promise<PeopleSeed> {
  // The account: name, mailing address, default sender name, registration answers, form mappings, fonts, logo.
  const account = await s.must('account', 'GET', '/v1/accounts');
  const writeKey = account.writeKey as string;
  await s.write('account.name', [pick(0)], 'PATCH', '/v1/accounts/me', { name: pick(0).text });
  await s.write('account.mailingAddress', [pick(1, 1000)], 'PATCH', '/v1/accounts/me', {
    mailingAddress: pick(1, 1000).text,
  });
  await s.write('account.defaultFromName', [pick(2)], 'PATCH', '/v1/accounts/me', {
    defaultFromName: pick(2).text,
  });
  await s.write('account.industry', [pick(3, 100)], 'PATCH', '/v1/accounts/me', {
    industry: pick(3, 100).text,
  });
  await s.write('account.goals', [pick(4, 5000)], 'PATCH', '/v1/accounts/me', { goals: pick(4, 5000).text });
  await s.write('account.previousTool', [pick(5)], 'PATCH', '/v1/accounts/me', {
    previousTool: pick(5).text,
  });
  await s.write('account.phone', [pick(6, 50)], 'PATCH', '/v1/accounts/me', { phone: pick(6, 50).text });
  await s.write('account.logo', [pick(7)], 'PATCH', '/v1/accounts/me', {
    logo: `javascript:__heraldXss(${pick(7).id})`,
  });
  const mapped = slices(3, fitting(200)).map((slice) => slice.slice(0, 3));
  await s.write('account.formFieldMappings', mapped.flat(), 'PATCH', '/v1/accounts/me', {
    formFieldMappings: Object.fromEntries(mapped.map(([a, b, c]) => [a!.text, { [b!.text]: c!.text }])),
  });
  const fonts = fitting(100).slice(10, 20);
  await s.write('account.emailFonts.family', fonts, 'PATCH', '/v1/accounts/me', {
    emailFonts: fonts.map((p, i) => ({
      family: p.text,
      url: `https://fonts.example.com/css?i=${i}&f=${encodeURIComponent(p.text)}`,
    })),
  });

  // Sub-accounts (the account menu lists them) and team members (the team page, invitations).
  for (let i = 0; i < 3; i++)
    await s.write('subaccount.name', [pick(20 + i)], 'POST', '/v1/team-members/accounts', {
      name: pick(20 + i).text,
      timezone: 'UTC',
    });
  for (let i = 0; i < 8; i++)
    await s.write('teamMember.name', [pick(30 + i)], 'POST', '/v1/team-members', {
      name: pick(30 + i).text,
      email: `mate-${runTag}-${i}@example.com`,
    });

  // Custom fields: titles and tooltips, and a choice field whose options are payloads.
  const fieldNames = Array.from({ length: 12 }, (_, i) => `hostile${i}`);
  const fieldItems = fieldNames.map((name, i) => ({
    name,
    title: pick(40 + i).text,
    tooltip: pick(60 + i, 500).text,
    type: 'string',
  }));
  await s.write(
    'field.title',
    fieldNames.map((_, i) => pick(40 + i)),
    'POST',
    '/v1/fields',
    { items: fieldItems },
  );
  s.note(
    'field.tooltip',
    fieldNames.map((_, i) => pick(60 + i, 500)),
  );
  const choices = fitting(200).slice(0, 40);
  await s.write('field.enumNames', choices, 'POST', '/v1/fields', {
    items: [
      {
        name: 'hostilechoice',
        title: 'Hostile choice',
        type: 'enum',
        enum: choices.map((p) => `v${p.id}`),
        enumNames: choices.map((p) => p.text),
      },
    ],
  });
  await s.call('PATCH', '/v1/accounts/me', {
    peopleTableFields: [
      ...['email', 'firstName', 'lastName', 'company', 'tags'],
      ...fieldNames.slice(0, 6),
      'hostilechoice',
    ].map((name) => ({ name, enabled: true })),
  });

  // Tags: every payload that fits is a tag, with another payload as its description.
  const tags = allFitting(200);
  for (const batch of slices(Math.ceil(tags.length / 100), tags)) {
    await s.write('tag', batch, 'POST', '/v1/tags-management', {
      tags: batch.map((p) => ({ tag: p.text, description: pick(p.id + 7, 1000).text })),
    });
    s.note(
      'tag.description',
      batch.map((p) => pick(p.id + 7, 1000)),
    );
  }

  // People through the ingest API, one batch: a person per payload, payloads in every built-in and custom field.
  const people = fitting(200);
  const batch = people.map((p, i) => ({
    type: 'identify',
    email: `p${p.id}-${runTag}@example.com`,
    traits: {
      firstName: p.text,
      lastName: pick(i + 1).text,
      company: pick(i + 2).text,
      phone: pick(i + 3, 50).text,
      website: pick(i + 4).text,
      [fieldNames[i % fieldNames.length]!]: pick(i + 5, 5000).text,
      hostilechoice: `v${choices[i % choices.length]!.id}`,
    },
  }));
  const ingested = await s.write(
    'ingest.identify.traits',
    people,
    'POST',
    '/v1/ingest/batch',
    { batch },
    { 'x-write-key': writeKey },
    false,
  );
  if (ingested && ingested.rejected.length > 0)
    throw new Error(`ingest refused people: ${JSON.stringify(ingested.rejected.slice(0, 3))}`);

  // Heavy people, by hand: every field a payload, many tags, and hostile email local parts where the address allows.
  const heavyPersonIds: number[] = [];
  for (let i = 0; i < 4; i++) {
    const body = {
      email: `heavy${i}-${runTag}@example.com`,
      firstName: pick(100 + i).text,
      lastName: pick(110 + i).text,
      company: pick(120 + i).text,
      phone: pick(130 + i, 50).text,
      website: `javascript:__heraldXss(${pick(140 + i).id})`,
      tags: pick(150 + i).text,
      ...Object.fromEntries(fieldNames.map((name, k) => [name, pick(160 + i * 12 + k, 5000).text])),
    };
    const made = await s.write(
      'person.manual',
      [pick(100 + i), pick(110 + i), pick(120 + i), pick(130 + i, 50), pick(150 + i)],
      'POST',
      '/v1/people/?source=manual',
      body,
    );
    heavyPersonIds.push(made.user.id);
  }
  const heavyTags = slices(4, tags);
  await inParallel(heavyTags, 4, async (slice, i) => {
    for (const p of slice.slice(0, 40))
      await s.write('person.tag', [p], 'POST', '/v1/tags/', { tag: p.text, id: heavyPersonIds[i] });
  });
  await inParallel(corpus.slice(0, 20), 6, async (p) => {
    for (const local of localParts(p.id))
      await s.write('person.emailLocalPart', [p], 'POST', '/v1/people/?source=manual', {
        email: `${local}@example.com`,
      });
  });

  // Events: every payload as an event name, property name and value, page URL and title, on the heavy people.
  const eventSlices = slices(heavyPersonIds.length, fitting(200));
  const events = eventSlices.flatMap((slice, i) =>
    slice.map((p) => ({
      type: 'track',
      email: `heavy${i}-${runTag}@example.com`,
      name: p.text,
      properties: {
        [pick(p.id + 3, 100).text]: pick(p.id + 4, 5000).text,
        url: `javascript:__heraldXss(${p.id})`,
      },
    })),
  );
  const pages = corpus.slice(0, 40).map((p, i) => ({
    type: 'page',
    email: `heavy${i % 4}-${runTag}@example.com`,
    url: p.text,
    name: pick(p.id + 9).text,
  }));
  await s.write(
    'ingest.track.name',
    fitting(200),
    'POST',
    '/v1/ingest/batch',
    { batch: events },
    { 'x-write-key': writeKey },
    false,
  );
  await s.write(
    'ingest.page.url',
    corpus.slice(0, 40),
    'POST',
    '/v1/ingest/batch',
    { batch: pages },
    { 'x-write-key': writeKey },
    false,
  );

  // Form data through the site-tracking endpoint: form ids and names, field names and values, page titles.
  const forms = slices(14, fitting(200));
  await inParallel(forms, 4, async (slice, i) => {
    const body = {
      writeKey,
      anonymousId: `hostile${runTag}${i}`,
      events: [
        {
          type: 'page',
          url: `https://site.example.com/page-${i}`,
          title: slice[0]!.text,
          referrer: slice[1]!.text,
        },
        {
          type: 'form',
          url: `https://site.example.com/form-${i}`,
          form: { id: slice[2]!.text, name: slice[3]!.text },
          fields: [
            { name: 'email', type: 'email', value: `heavy${i % 4}-${runTag}@example.com` },
            ...slice
              .slice(4)
              .map((p, k) => ({ name: k % 2 ? p.text : `field ${k}`, type: 'text', value: p.text })),
          ],
        },
      ],
    };
    await s.write(
      'siteTracking.form',
      slice,
      'POST',
      '/v1/site-tracking/collect',
      JSON.stringify(body),
      { 'content-type': 'text/plain' },
      false,
    );
  });

  // Segments: a segment per payload, its condition on the payload tag; a few with conditions on everything.
  const segmentIds: number[] = [];
  await inParallel(fitting(200), 6, async (p) => {
    const made = await s.write('segment.name', [p], 'POST', '/v1/segments/', {
      name: p.text,
      conditions: [{ type: 'tag', operator: 'has', tag: p.text }],
    });
    if (made && segmentIds.length < 3) segmentIds.push(made.segment.id);
  });
  for (let i = 0; i < 2; i++) {
    const conditions = [
      {
        type: 'event',
        name: pick(200 + i).text,
        properties: [{ key: pick(210 + i, 100).text, operator: 'equals', value: pick(220 + i, 500).text }],
      },
      { type: 'field', field: fieldNames[i]!, operator: 'equals', value: pick(230 + i, 500).text },
      { type: 'pageVisited', url: pick(240 + i).text },
      { type: 'formSubmitted', form: pick(245 + i, 500).text },
    ];
    const made = await s.write(
      'segment.conditions',
      [
        pick(200 + i),
        pick(210 + i, 100),
        pick(220 + i, 500),
        pick(230 + i, 500),
        pick(240 + i),
        pick(245 + i, 500),
      ],
      'POST',
      '/v1/segments/',
      { name: pick(250 + i).text, conditions },
    );
    if (made) segmentIds.unshift(made.segment.id);
  }

  // Folders of every type.
  for (const [k, folderType] of [
    'segments',
    'emails',
    'flows',
    'personFields',
    'broadcasts',
    'tags',
  ].entries()) {
    for (let i = 0; i < 3; i++)
      await s.write('folder.name', [pick(260 + k * 3 + i)], 'POST', '/v1/folders', {
        folderType,
        name: pick(260 + k * 3 + i).text,
      });
  }

  // Communication categories and suppression notes.
  const categoryIds: number[] = [];
  for (let i = 0; i < 8; i++) {
    const made = await s.write(
      'category.name+description',
      [pick(280 + i, 100), pick(290 + i, 500)],
      'POST',
      '/v1/settings/communication-categories',
      { name: pick(280 + i, 100).text, description: pick(290 + i, 500).text },
    );
    if (made) categoryIds.push(made.category.id);
  }
  for (let i = 0; i < 4; i++)
    await s.write('suppression.note', [pick(300 + i, 500)], 'POST', '/v1/suppressions', {
      emails: [`gone${i}-${runTag}@example.com`],
      note: pick(300 + i, 500).text,
    });

  const importIds = await seedImport(s, fieldNames);
  return { heavyPersonIds, segmentIds, importIds, categoryIds, fieldNames, writeKey };
}

function csvCell(text: string): string {
  return `"${text.replaceAll('"', '""')}"`;
}

/** A real CSV import: payload column headers and cells, rows that fail with payloads in them, a payload name and tags. */
async function seedImport(s: Seeder, fieldNames: string[]): Promise<number[]> {
  const cells: Payload[] = fitting(200);
  const header = ['Email', 'First', 'Last', pick(320, 500).text, 'Note'];
  const rows = cells.map((p, i) => [
    i % 10 === 9 ? p.text : `imp${p.id}-${runTag}@example.com`,
    p.text,
    pick(i + 11).text,
    pick(i + 12, 5000).text,
    pick(i + 13, 5000).text,
  ]);
  const csv = [header, ...rows].map((row) => row.map(csvCell).join(',')).join('\n');
  const upload = await s.must('import upload url', 'POST', '/v1/imports/upload-url');
  const target = new URL(upload.url as string);
  const put = await s.call(
    'PUT',
    target.pathname + target.search,
    csv,
    { 'content-type': 'text/csv' },
    false,
  );
  if (put.status !== 204) throw new Error(`import upload answered ${put.status}`);
  const fieldMapping = [
    { column: 'Email', field: 'email' },
    { column: 'First', field: 'firstName' },
    { column: 'Last', field: 'lastName' },
    { column: header[3]!, field: null, newField: { title: pick(321).text, type: 'string' } },
    { column: 'Note', field: fieldNames[0]! },
  ];
  const made = await s.write('import.cells', cells, 'POST', '/v1/imports', {
    name: pick(322).text,
    peopleFileKey: upload.key,
    numPeople: rows.length,
    fieldMapping,
    tags: [pick(323).text, pick(324).text],
  });
  if (!made) return [];
  s.note('import.name+tags+header', [pick(320, 500), pick(321), pick(322), pick(323), pick(324)]);
  await until(
    async () => {
      const state = await s.must('import state', 'GET', `/v1/imports/${made.id}`);
      return state.status === 'done' || state.status === 'failed';
    },
    { timeout: 60_000, interval: 200, message: `the import ${made.id} finished` },
  );
  return [made.id as number];
}
