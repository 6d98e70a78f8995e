import { emailWarningMessages } from '@herald/contracts';
import { describe, expect, it } from 'vitest';
import { lintEmail } from '../src/index.ts';
import { account, newsletter } from './fixtures.ts';

const context = {
  personFields: ['email', 'firstName', 'lastName', 'plan', 'company', 'userId', 'tags'],
  account,
};
const codes = (warnings: { code: string }[]) => warnings.map((warning) => warning.code);

describe('lintEmail', () => {
  it('a complete email has no warnings', () => {
    expect(lintEmail(newsletter, context)).toEqual([]);
  });

  it('an empty subject, no unsubscribe link, no mailing address', () => {
    expect(codes(lintEmail({ subject: '  ', html: '<p>Hello</p>' }, context))).toEqual([
      'emptySubject',
      'noUnsubscribeLink',
      'noMailingAddress',
    ]);
  });

  it('a preferences link counts as a way to unsubscribe; the address may be written out', () => {
    expect(
      lintEmail(
        { subject: 's', html: '<a href="{{ preferences_url }}">Preferences</a> 1 Engine Way, London' },
        context,
      ),
    ).toEqual([]);
  });

  it('the mailing address tag warns while the account has no address', () => {
    const noAddress = { ...context, account: { ...account, mailingAddress: null } };
    expect(codes(lintEmail(newsletter, noAddress))).toEqual(['noMailingAddress']);
  });

  it('merge tags that are not fields of the people, in any part, once each', () => {
    const warnings = lintEmail(
      {
        subject: '{{ person.fristName }}',
        preheader: '{{ persn.x }}',
        html: `${newsletter.html}{{ person.fristName }}{{ account.plan }}`,
      },
      context,
    );
    expect(warnings).toEqual([
      { code: 'unknownMergeTag', message: emailWarningMessages.unknownMergeTag('person.fristName') },
      { code: 'unknownMergeTag', message: emailWarningMessages.unknownMergeTag('persn.x') },
      { code: 'unknownMergeTag', message: emailWarningMessages.unknownMergeTag('account.plan') },
    ]);
  });

  it('loop variables are not merge tags', () => {
    expect(
      lintEmail(
        {
          subject: 's',
          html: `${newsletter.html}{% for t in person.tags %}{{ t }}{{ forloop.index }}{% endfor %}{% assign n = 1 %}{{ n }}`,
        },
        context,
      ),
    ).toEqual([]);
  });

  it('a broken merge tag is a warning naming where it is', () => {
    const warnings = lintEmail({ subject: 's', html: 'a\n{{ person.firstName | nope }}' }, context);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ code: 'brokenMergeTag' });
    expect(warnings[0]!.message).toMatch(/on line 2: undefined filter: nope/);
  });
});
