import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, launchBrowser, logIn, newPage, screenshot, uniqueEmail } from '../support/browser.ts';

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(() => browser.close());

/** Adds a person through the API from the signed-in page (same origin, same session). */
async function addPersonByApi(page: Page, body: Record<string, unknown>) {
  return page.evaluate(async (payload) => {
    const res = await fetch('/v1/people/?source=manual', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(payload),
    });
    const body = (await res.json()) as { user?: { id: number } };
    return { status: res.status, id: body.user?.id };
  }, body);
}

describe('people', () => {
  it('an owner adds a person by hand, tags them, edits a field, finds them by search and deletes them', async () => {
    const owner = await createUser();
    const { page } = await newPage(browser);
    await logIn(page, owner.email, owner.password, '/people');
    await page.getByText('No people yet').waitFor();
    await screenshot(page, 'people-empty');

    const email = uniqueEmail('ada');
    await page.getByRole('button', { name: 'Add person' }).first().click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('textbox', { name: 'Email' }).fill(email);
    await dialog.getByRole('textbox', { name: 'First name' }).fill('Ada');
    await dialog.getByRole('textbox', { name: 'Last name' }).fill('Lovelace');
    await dialog.getByRole('textbox', { name: 'Tags' }).fill('lead,  early   bird');
    await dialog.getByRole('button', { name: 'Add person' }).click();
    await page.getByText('Person added.').first().waitFor();
    await page.getByRole('link', { name: email }).waitFor();
    await screenshot(page, 'people-list');

    // Another person, so that the search has something to leave out.
    expect(
      (await addPersonByApi(page, { email: uniqueEmail('grace'), firstName: 'Grace', lastName: 'Hopper' }))
        .status,
    ).toBe(201);

    await page.getByRole('link', { name: email }).click();
    await page.waitForURL(/\/people\/\d+$/);
    const personPath = new URL(page.url()).pathname;
    await page.getByRole('heading', { name: 'Ada Lovelace' }).waitFor();
    await page.getByRole('listitem').filter({ hasText: 'early bird' }).waitFor();

    // A site tracks an event for this person with the account's write key; it shows in the activity.
    const ingested = await page.evaluate(async (personEmail) => {
      const account = await (await fetch('/v1/accounts')).json();
      const res = await fetch('/v1/ingest', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-write-key': account.writeKey },
        body: JSON.stringify({ type: 'track', email: personEmail, name: 'Watched the webinar' }),
      });
      return res.json();
    }, email);
    expect(ingested).toEqual({ accepted: 1, rejected: [] });
    await page.reload();
    await page.getByText('Watched the webinar').first().waitFor();

    // Add and remove a tag.
    await page.getByRole('textbox', { name: 'Tag' }).fill('vip');
    await page.getByRole('button', { name: 'Add tag' }).click();
    await page.getByRole('listitem').filter({ hasText: 'vip' }).waitFor();
    await page.reload();
    await page.getByRole('listitem').filter({ hasText: 'vip' }).waitFor();
    await page.getByRole('button', { name: 'Remove tag vip' }).click();
    await page.getByRole('listitem').filter({ hasText: 'vip' }).waitFor({ state: 'detached' });
    await page.reload();
    await page.getByRole('listitem').filter({ hasText: 'lead' }).waitFor();
    expect(await page.getByRole('listitem').filter({ hasText: 'vip' }).count()).toBe(0);

    // Edit a field.
    await page.getByRole('button', { name: 'Edit', exact: true }).click();
    await page.getByRole('textbox', { name: 'Company' }).fill('Analytical Engines Ltd');
    await screenshot(page, 'person-edit');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Person updated').first().waitFor();
    await page.getByText('Analytical Engines Ltd').waitFor();
    await screenshot(page, 'person');

    // Search for them from /people: one character does not search, two or more do.
    await page.goto('/people');
    await page
      .getByText(/Grace|grace-/)
      .first()
      .waitFor();
    await page.getByRole('searchbox', { name: 'Search people' }).fill('L');
    // Not a wait for work: longer than the search box's debounce (a timer); a one-letter search would have gone out.
    await page.waitForTimeout(800);
    expect(await page.getByRole('link', { name: /grace-/ }).count()).toBe(1);
    await page.getByRole('searchbox', { name: 'Search people' }).fill('Lovelace');
    await page.getByRole('link', { name: /grace-/ }).waitFor({ state: 'detached' });
    await page.getByRole('link', { name: email }).waitFor();
    await screenshot(page, 'people-search');

    // Select them and open the bulk bar (the bulk work itself is the server's).
    await page.getByRole('checkbox', { name: `Select ${email}` }).check();
    await page.getByRole('toolbar', { name: 'Selected people' }).waitFor();
    await page.getByRole('button', { name: 'Add tag' }).click();
    await page.getByRole('dialog').getByRole('textbox', { name: 'Tag' }).fill('bulk tagged');
    await page.getByRole('dialog').getByRole('button', { name: 'Add tag' }).click();
    await page.getByText('People will be tagged shortly.').first().waitFor();
    await page.getByText('bulk tagged').first().waitFor({ timeout: 20_000 });
    await page.getByRole('checkbox', { name: `Select ${email}` }).check();
    await page.getByRole('button', { name: 'Export' }).waitFor();
    await page.getByRole('button', { name: 'Archive' }).waitFor();

    // Delete them.
    await page.getByRole('link', { name: email }).click();
    await page.waitForURL((url) => url.pathname === personPath);
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await page.getByText('Person has been deleted.').first().waitFor();
    await page.waitForURL((url) => url.pathname === '/people');
    await page.goto(personPath);
    await page.getByText('Person does not exist.').waitFor();
  });

  it('an owner manages tags and custom fields from the settings pages', async () => {
    const owner = await createUser();
    const { page } = await newPage(browser);
    await logIn(page, owner.email, owner.password, '/settings/tags');
    await page.getByRole('button', { name: 'New Tag' }).first().click();
    await page.waitForURL(/tag-edit=new/);
    const dialog = page.getByRole('dialog', { name: 'New Tag' });
    await dialog.getByRole('textbox', { name: 'Tag' }).fill('  Webinar,  2026 ');
    await dialog.getByRole('textbox', { name: 'Description' }).fill('Came to the spring webinar');
    await dialog.getByRole('button', { name: 'Create' }).click();
    // The saved tag is what counts; the toast may already be fading on a slow machine.
    await page.getByRole('cell', { name: 'Webinar 2026', exact: true }).waitFor();
    await page.reload();
    await page.getByRole('cell', { name: 'Webinar 2026', exact: true }).waitFor();
    // The same name again is refused before it reaches the server.
    await page.getByRole('button', { name: 'New Tag' }).first().click();
    await page
      .getByRole('dialog', { name: 'New Tag' })
      .getByRole('textbox', { name: 'Tag' })
      .fill('Webinar 2026');
    await page.getByText('This tag already exists.').waitFor();
    expect(
      await page
        .getByRole('dialog', { name: 'New Tag' })
        .getByRole('button', { name: 'Create' })
        .isDisabled(),
    ).toBe(true);
    await page.getByRole('dialog', { name: 'New Tag' }).getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('button', { name: 'Edit Webinar 2026' }).click();
    await page.getByText('Modifying this tag will change it in flows, segments and people.').waitFor();
    await screenshot(page, 'tag-edit');
    await page.getByRole('dialog', { name: 'Edit Tag' }).getByRole('button', { name: 'Cancel' }).click();
    await screenshot(page, 'tags');

    await page.goto('/settings/person-fields');
    await page.getByRole('button', { name: 'New field' }).click();
    await page.waitForURL(/custom-field-edit=new/);
    const fieldDialog = page.getByRole('dialog', { name: 'New field' });
    await fieldDialog.getByRole('textbox', { name: 'Name' }).fill('plan tier!');
    await fieldDialog.getByText('plantier').waitFor();
    await fieldDialog.getByRole('textbox', { name: 'Title' }).fill('Plan tier');
    await fieldDialog.getByRole('textbox', { name: 'Type' }).click();
    await page.getByRole('option', { name: 'Choice list' }).click();
    await fieldDialog.getByRole('button', { name: 'Add value' }).click();
    await fieldDialog.getByRole('textbox', { name: 'Value 1' }).fill('gold');
    await screenshot(page, 'field-new');
    await fieldDialog.getByRole('button', { name: 'Create' }).click();
    await page.getByText('Field created.').first().waitFor();
    await page.getByRole('button', { name: 'Edit Plan tier' }).click();
    await page.waitForURL(/custom-field-edit=plantier/);
    await screenshot(page, 'person-fields');

    const added = await addPersonByApi(page, {
      email: uniqueEmail('narrow'),
      firstName: 'Nora',
      lastName: 'Narrow',
      tags: 'Webinar 2026, vip',
      plantier: 'gold',
    });
    expect(added.status).toBe(201);
    for (const path of ['/people', `/people/${added.id}`, '/settings/tags', '/settings/person-fields']) {
      const narrow = (await newPage(browser, { width: 390, height: 844 })).page;
      await logIn(narrow, owner.email, owner.password, path);
      await narrow.getByRole('heading', { level: 1 }).waitFor();
      await narrow.waitForTimeout(500); // the page's entrance transition (CSS, for the screenshot; no assertion follows)
      await screenshot(narrow, `narrow${path.replace(/\/\d+$/, '-person').replaceAll('/', '-')}`);
      await narrow.context().close();
    }
  });
});
