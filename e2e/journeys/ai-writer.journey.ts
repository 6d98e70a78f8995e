import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { api, createUser, launchBrowser, logIn, newPage, screenshot } from '../support/browser.ts';
import { startExtraServer, type ExtraServer } from '../support/extra-server.ts';

let browser: Browser;
let serverWithoutAi: ExtraServer | undefined;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser.close();
  await serverWithoutAi?.stop();
});

/** A second Herald (API role) on the journeys' database, with no AI provider configured: the writer is off there. */
async function startServerWithoutAi(): Promise<string> {
  serverWithoutAi = await startExtraServer({
    name: 'no-ai',
    databaseUrl: inject('databaseUrl'),
    role: 'api',
    env: { BILLING_MODE: 'plans', AI_BASE_URL: undefined, AI_API_KEY: undefined },
  });
  return serverWithoutAi.base;
}

/** Pick an option of a segmented control (its radio is visually hidden under the label). */
async function choose(page: Page, name: string) {
  await page.getByRole('radio', { name }).evaluate((radio: HTMLInputElement) => radio.click());
}

const blankRichText = '<p>Hi there,</p><p></p><p><a href="{{ unsubscribe_url }}">Unsubscribe</a></p>';

describe('AI writer', () => {
  it('a marketer drafts subject lines and an email with the AI writer and puts them into the email', async () => {
    const user = await createUser();
    const { cookie } = await api('POST', '/v1/accounts/login/', {
      email: user.email,
      password: user.password,
    });
    await api('PATCH', '/v1/accounts/me', { name: 'Acme Bikes' }, cookie);
    const created = await api(
      'POST',
      '/v1/emails',
      {
        name: 'Spring sale',
        subject: 'Draft subject',
        fromEmail: user.email,
        html: blankRichText,
        editor: { type: 'richtext', state: null, html: blankRichText },
      },
      cookie,
    );
    expect(created.status).toBe(201);
    const id = created.body.email.id as number;

    const { page } = await newPage(browser);
    await logIn(page, user.email, user.password, `/emails/${id}`);
    await page.locator('.tiptap').first().waitFor();
    await page.getByRole('button', { name: 'AI writer' }).click();

    // The large modal: Write Email chosen, the company prefilled, Generate disabled until the brief has text.
    const dialog = page.getByRole('dialog', { name: 'AI writer' });
    await dialog.waitFor();
    expect(await dialog.getByRole('radio', { name: 'Write Email' }).isChecked()).toBe(true);
    expect(await dialog.getByRole('textbox', { name: 'Company name' }).inputValue()).toBe('Acme Bikes');
    const generate = dialog.getByRole('button', { name: 'Generate' });
    expect(await generate.isDisabled()).toBe(true);
    await dialog.getByText('No suggestions yet.').waitFor();
    await page.waitForTimeout(300); // the opening transition
    await screenshot(page, 'ai-writer-empty');

    // Subject lines from a brief; the newest are listed first; one becomes the subject.
    await choose(page, 'Subject Lines');
    await dialog
      .getByRole('textbox', { name: 'What is the email about?' })
      .fill('Spring sale: 30% off every bike until Sunday');
    await dialog.getByRole('textbox', { name: 'Tone' }).fill('Playful');
    await page.keyboard.press('Escape'); // the tone's suggestions
    expect(await generate.isDisabled()).toBe(false);
    await generate.click();
    const subjects = dialog.getByRole('list', { name: 'Subject Lines suggestions' });
    await subjects.getByText('Acme Bikes: Spring sale: 30% off every bike until Sunday').waitFor();
    expect(await subjects.getByRole('listitem').count()).toBe(5);
    await screenshot(page, 'ai-writer-subject-lines');

    // A model that fails: the server's message is shown and nothing is added to the list.
    await dialog
      .getByRole('textbox', { name: 'What is the email about?' })
      .fill('Spring sale [standin:error500]');
    await generate.click();
    await dialog.getByRole('alert').getByText("We couldn't retrieve suggestions.").waitFor();
    expect(await subjects.getByRole('listitem').count()).toBe(5);
    await screenshot(page, 'ai-writer-error');

    await subjects
      .getByRole('listitem', { name: 'Acme Bikes: Spring sale: 30% off every bike until Sunday' })
      .getByRole('button', { name: 'Use as subject' })
      .click();
    await dialog.waitFor({ state: 'hidden' });
    expect(await page.getByRole('textbox', { name: 'Subject' }).inputValue()).toBe(
      'Acme Bikes: Spring sale: 30% off every bike until Sunday',
    );

    // A whole email from the same brief goes into the body at the cursor.
    await page.locator('.tiptap p').first().click();
    await page.keyboard.press('End');
    await page.getByRole('button', { name: 'AI writer' }).click();
    await dialog.waitFor();
    await choose(page, 'Write Email');
    await dialog
      .getByRole('textbox', { name: 'What should the email say?' })
      .fill('Spring sale: 30% off every bike until Sunday');
    await dialog.getByRole('button', { name: 'Generate' }).click();
    const emails = dialog.getByRole('list', { name: 'Write Email suggestions' });
    await emails.getByText('We have news at Acme Bikes').waitFor();
    await screenshot(page, 'ai-writer-email');
    await emails.getByRole('listitem').first().getByRole('button', { name: 'Insert' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await page
      .locator('.tiptap')
      .getByText('We have news at Acme Bikes: Spring sale: 30% off every bike until Sunday.')
      .waitFor();

    // Saved: the server has the new subject and body.
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Email saved.').first().waitFor();
    const saved = (await api('GET', `/v1/emails/${id}`, undefined, cookie)).body.email;
    expect(saved.subject).toBe('Acme Bikes: Spring sale: 30% off every bike until Sunday');
    expect(saved.html).toContain('We have news at Acme Bikes: Spring sale: 30% off every bike until Sunday.');
    await screenshot(page, 'ai-writer-inserted');

    // The suggestions stay listed, newest first, when the writer is opened again; on a phone it fills the screen.
    const phone = (await newPage(browser, { width: 390, height: 844 })).page;
    await logIn(phone, user.email, user.password, `/emails/${id}`);
    await phone.locator('.tiptap').first().waitFor();
    await screenshot(phone, 'ai-writer-phone-editor');
    await phone.getByRole('button', { name: 'AI writer' }).click();
    const phoneDialog = phone.getByRole('dialog', { name: 'AI writer' });
    await phoneDialog
      .getByRole('list', { name: 'Write Email suggestions' })
      .getByText('We have news at Acme Bikes')
      .waitFor();
    await phone.waitForTimeout(300); // the opening transition (CSS, for the screenshot; no assertion follows)
    await screenshot(phone, 'ai-writer-phone');
  });

  it('on a server with no AI provider, the button explains how to turn the writer on and nothing generates', async () => {
    const url = await startServerWithoutAi();
    const user = await createUser();
    const { cookie } = await api('POST', '/v1/accounts/login/', {
      email: user.email,
      password: user.password,
    });
    const created = await api(
      'POST',
      '/v1/emails',
      {
        name: 'No AI',
        subject: 'Hello',
        fromEmail: user.email,
        html: blankRichText,
        editor: { type: 'richtext', state: null, html: blankRichText },
      },
      cookie,
    );
    const id = created.body.email.id as number;

    const { page } = await newPage(browser);
    await page.goto(`${url}/login`);
    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password').fill(user.password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL((address) => !address.pathname.startsWith('/login'));
    await page.goto(`${url}/emails/${id}`);
    await page.locator('.tiptap').first().waitFor();
    await page.getByRole('button', { name: 'AI writer' }).click();
    const dialog = page.getByRole('dialog', { name: 'The AI writer is off' });
    await dialog.getByText('The AI writer is not enabled on this server.').waitFor();
    await dialog.getByText('AI_BASE_URL', { exact: true }).waitFor();
    expect(await dialog.getByRole('button', { name: 'Generate' }).count()).toBe(0);
    await page.waitForTimeout(300); // the opening transition (CSS, for the screenshot; no assertion follows)
    await screenshot(page, 'ai-writer-off');
    await dialog.getByRole('button', { name: 'Close' }).first().click();
    await dialog.waitFor({ state: 'hidden' });
  });
});
