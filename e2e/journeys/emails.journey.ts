import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  api,
  createUser,
  documentText,
  launchBrowser,
  logIn,
  newPage,
  screenshot,
  uniqueEmail,
} from '../support/browser.ts';
import { invitationToken } from '../support/mailbox.ts';

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(() => browser.close());

/** Pick an option of a segmented control (its radio is visually hidden under the label). */
async function choose(page: Page, name: string) {
  await page.getByRole('radio', { name }).evaluate((radio: HTMLInputElement) => radio.click());
}

/** The document text of the preview frame with this title (see documentText). */
function frameText(page: Page, title: string) {
  return documentText(page.frameLocator(`iframe[title="${title}"]`));
}

async function createFromModal(page: Page, options: { subject: string; start: string }) {
  const dialog = page.getByRole('dialog', { name: 'New email' });
  await dialog.waitFor();
  await dialog.getByRole('textbox', { name: 'Subject' }).fill(options.subject);
  await dialog
    .getByRole('button', { name: new RegExp(options.start) })
    .first()
    .click();
  await dialog.getByRole('button', { name: 'Create email' }).click();
  await page.waitForURL(/\/emails\/\d+$/);
  return Number(new URL(page.url()).pathname.split('/').pop());
}

describe('emails', () => {
  it('a marketer creates an email from a template, personalises, previews, saves, tests, copies and archives it', async () => {
    const user = await createUser();
    const session = await api('POST', '/v1/accounts/login/', { email: user.email, password: user.password });
    await api(
      'POST',
      '/v1/people/',
      { email: uniqueEmail('grace'), firstName: 'Grace', lastName: 'Hopper' },
      session.cookie,
    );
    const { page } = await newPage(browser);
    await logIn(page, user.email, user.password, '/emails');
    await page.getByRole('heading', { name: 'No emails yet' }).waitFor();
    await screenshot(page, 'emails-empty');
    await page.getByRole('button', { name: 'Create your first email' }).click();
    await page.getByRole('dialog', { name: 'New email' }).getByText('Newsletter').waitFor();
    await page.waitForTimeout(400); // the dialog's opening transition
    await screenshot(page, 'emails-new-modal');
    const id = await createFromModal(page, {
      subject: 'News for {{ person.firstName | default: "you" }}',
      start: 'Newsletter',
    });

    // The HTML editor with its live preview.
    await page.getByRole('textbox', { name: 'Email name' }).waitFor();
    await page.locator('.cm-content').first().waitFor();
    await expect.poll(() => frameText(page, 'Live preview')).toContain("here is this month's news");
    await screenshot(page, 'email-html-editor');
    await page.getByRole('textbox', { name: 'Email name' }).fill('March newsletter');
    await page.keyboard.press('Control+s');
    await page.getByText('Email saved.').first().waitFor();
    expect((await api('GET', `/v1/emails/${id}`, undefined, session.cookie)).body.email.name).toBe(
      'March newsletter',
    );

    // A merge tag from the picker goes into the code at the cursor.
    await page.locator('.cm-content').first().click();
    await page.keyboard.press('Control+End');
    await page.getByRole('button', { name: 'Merge tag' }).click();
    await page.getByLabel('Fallback when empty').fill('friend');
    await page.getByRole('button', { name: /First name/ }).click();
    await page
      .locator('.cm-content')
      .getByText('{{ person.firstName | default: "friend" }}')
      .last()
      .waitFor();

    // Preview as sample data and as a real person, desktop and phone width; scripts never run.
    await choose(page, 'Preview');
    await page.getByTestId('preview-subject').getByText('News for Jane').waitFor();
    const frame = page.locator('iframe[title="Email preview, desktop width"]');
    expect(await frame.getAttribute('sandbox')).toBe('');
    await expect.poll(() => frameText(page, 'Email preview, desktop width')).toContain('Hi Jane, here is');
    await screenshot(page, 'email-preview-desktop');
    await choose(page, 'Mobile');
    const mobile = page.locator('iframe[title="Email preview, mobile width"]');
    await mobile.waitFor();
    await expect.poll(async () => (await mobile.boundingBox())!.width).toBeLessThanOrEqual(380);
    await expect.poll(() => frameText(page, 'Email preview, mobile width')).toContain('Hi Jane, here is');
    await screenshot(page, 'email-preview-mobile');
    await page.getByRole('textbox', { name: 'Preview as' }).click();
    await page.getByRole('textbox', { name: 'Preview as' }).fill('Grace');
    await page.getByRole('option', { name: 'Grace Hopper' }).click();
    await page.getByTestId('preview-subject').getByText('News for Grace').waitFor();
    await page.getByRole('tab', { name: 'Plain text' }).click();
    await page.getByText('Hi Grace, here is this month').waitFor();

    // Its figures: not sent to anyone yet (tests do not count).
    await choose(page, 'Performance');
    await page.getByText('Not sent yet. Opens and clicks show here after the first send.').waitFor();
    await screenshot(page, 'email-performance');
    await choose(page, 'Preview');

    // The check lists what is missing (no mailing address yet); a test goes out anyway to two inboxes.
    await page.getByRole('button', { name: 'Send test' }).click();
    const warnings = page.getByRole('dialog', { name: 'Check your email' });
    await warnings.getByText('There is no mailing address').waitFor();
    await page.waitForTimeout(400); // the dialog's opening transition
    await screenshot(page, 'email-warnings');
    await warnings.getByRole('button', { name: 'Send test anyway' }).click();
    const testDialog = page.getByRole('dialog', { name: 'Send a test email' });
    await testDialog.waitFor();
    const second = uniqueEmail('second-inbox');
    await testDialog.getByRole('textbox', { name: 'Send to' }).fill(`${second},`);
    await page.waitForTimeout(400); // the dialog's opening transition
    await screenshot(page, 'email-send-test');
    await testDialog.getByRole('button', { name: 'Send test' }).click();
    await page.getByText(`Test email sent to ${user.email}, ${second}`).first().waitFor();
    const inbox = (await newPage(browser)).page;
    await inbox.goto('/dev/mailbox');
    await inbox.getByText(second).first().waitFor({ timeout: 20_000 });
    await inbox.getByText('[Test] News for Jane').first().waitFor();

    // The list: the email with its figures, found by search; copied, then the copy archived.
    await page.goto('/emails');
    await page.getByRole('link', { name: 'March newsletter' }).first().waitFor();
    await page.getByRole('button', { name: 'Add to favorites: March newsletter' }).click();
    await page.getByText('Added to favorites.').first().waitFor();
    await page.getByRole('textbox', { name: 'Search emails' }).fill('march');
    await screenshot(page, 'emails-list');
    await page.getByRole('button', { name: 'Actions for March newsletter' }).click();
    await page.getByRole('menuitem', { name: 'Copy…' }).click();
    await page
      .getByRole('dialog', { name: 'Copy email' })
      .getByText('Are you sure you want to copy this email?')
      .waitFor();
    await page.getByRole('button', { name: 'Copy Email' }).click();
    await page.waitForURL((url) => url.pathname !== `/emails/${id}` && /\/emails\/\d+$/.test(url.pathname));
    await expect
      .poll(async () => page.getByRole('textbox', { name: 'Email name' }).inputValue())
      .toBe('Copy of March newsletter');
    await page.goto('/emails');
    await page.getByRole('button', { name: 'Actions for Copy of March newsletter' }).click();
    await page.getByRole('menuitem', { name: 'Archive' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Archive' }).click();
    await page.getByText('“Copy of March newsletter” archived.').first().waitFor();
    await expect.poll(() => page.getByRole('link', { name: 'Copy of March newsletter' }).count()).toBe(0);
    await choose(page, 'Archived');
    await page.getByRole('link', { name: 'Copy of March newsletter' }).waitFor();
  });

  it('writes in rich text and in drag-and-drop blocks; both send tables of inlined CSS', async () => {
    const user = await createUser();
    const session = await api('POST', '/v1/accounts/login/', { email: user.email, password: user.password });
    const { page } = await newPage(browser);
    await logIn(page, user.email, user.password, '/emails?new=1');
    const rich = await createFromModal(page, { subject: 'A note', start: 'Rich text' });
    const editor = page.locator('.ProseMirror').first();
    await editor.waitFor();
    // Opening the editor changes nothing: the email is not marked unsaved until the user writes.
    await page.getByRole('button', { name: 'AI writer' }).waitFor();
    expect(await page.getByText('Unsaved', { exact: true }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Save' }).isDisabled()).toBe(true);
    await editor.click();
    await page.keyboard.press('Control+Home');
    await page.keyboard.type('Spring is here. ');
    await screenshot(page, 'email-rich-text');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Email saved.').first().waitFor();
    const saved = (await api('GET', `/v1/emails/${rich}`, undefined, session.cookie)).body.email;
    expect(saved.editor.type).toBe('richtext');
    expect(saved.html).toContain('Spring is here.');
    expect(saved.html).toContain('{{ unsubscribe_url }}');
    const renderedRich = await api(
      'POST',
      '/v1/emails/preview',
      { email: { subject: saved.subject, html: saved.html } },
      session.cookie,
    );
    expect(renderedRich.body.html).toMatch(/<td class="content" style="[^"]*padding/);

    await page.goto('/emails?new=1');
    const blocks = await createFromModal(page, { subject: 'Blocks', start: 'Drag and drop' });
    await page.locator('.gjs-editor').waitFor({ timeout: 30_000 });
    await page.frameLocator('.gjs-frame').getByText('Drag blocks here').waitFor();
    await screenshot(page, 'email-drag-drop');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Email saved.').first().waitFor();
    const built = (await api('GET', `/v1/emails/${blocks}`, undefined, session.cookie)).body.email;
    expect(built.editor.type).toBe('dragdrop');
    expect(built.editor.state).toBeTruthy();
    expect(built.html).toMatch(/<table[^>]*style="[^"]*width/);
    expect(built.html).toMatch(/<td[^>]*style="[^"]*padding/);
  });

  it('a teammate with only emails:read sees the email view-only, and the server refuses changes', async () => {
    const owner = await createUser();
    const ownerSession = await api('POST', '/v1/accounts/login/', {
      email: owner.email,
      password: owner.password,
    });
    const email = (
      await api(
        'POST',
        '/v1/emails',
        {
          name: 'Read me',
          subject: 'Hello',
          fromEmail: owner.email,
          html: '<p>Hello</p>',
          editor: { type: 'html', state: null, html: '<p>Hello</p>' },
        },
        ownerSession.cookie,
      )
    ).body.email;
    const readerEmail = uniqueEmail('reader');
    const readable = new Set(['people:read', 'emails:read']);
    const scopes = (await api('GET', '/v1/accounts', undefined, ownerSession.cookie)).body.teamMember
      .accountData.scopes as { id: string }[];
    await api(
      'POST',
      '/v1/team-members',
      {
        name: 'Rita Reader',
        email: readerEmail,
        scopes: scopes.map((scope) => ({ id: scope.id, enabled: readable.has(scope.id) })),
      },
      ownerSession.cookie,
    );
    const token = await invitationToken(readerEmail);
    const accepted = await api('POST', '/v1/team-members/invitations/accept', {
      token,
      password: 'reader password 1',
    });
    expect(accepted.status).toBe(200);

    const { page } = await newPage(browser);
    await logIn(page, readerEmail, 'reader password 1', '/emails');
    await page.getByRole('link', { name: 'Read me' }).first().waitFor();
    expect(await page.getByRole('button', { name: 'New Email' }).count()).toBe(0);
    await page.goto(`/emails/${email.id}`);
    await page.getByText('You can see this email.').waitFor();
    expect(await page.getByRole('button', { name: 'Save' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Send test' }).count()).toBe(0);
    expect(await page.getByRole('textbox', { name: 'Subject' }).getAttribute('readonly')).not.toBeNull();
    await page.locator('.cm-content[contenteditable="false"]').waitFor();
    await screenshot(page, 'email-view-only');
    const status = await page.evaluate(
      async (id) =>
        (
          await fetch(`/v1/emails/${id}`, {
            method: 'PATCH',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ subject: 'Changed' }),
          })
        ).status,
      email.id,
    );
    expect(status).toBe(403);
  });

  it('works on a phone-sized screen', async () => {
    const user = await createUser();
    const { page } = await newPage(browser, { width: 390, height: 844 });
    await logIn(page, user.email, user.password, '/emails');
    await page.getByRole('heading', { name: 'No emails yet' }).waitFor();
    await screenshot(page, 'emails-narrow');
  });
});
