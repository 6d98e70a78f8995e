import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, launchBrowser, logIn, newPage, screenshot } from '../support/browser.ts';

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(() => browser.close());

/** Creates tags through the API from the signed-in page (same origin, same session). */
async function addTagsByApi(page: Page, tags: string[]) {
  return page.evaluate(async (names) => {
    const res = await fetch('/v1/tags-management', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ tags: names.map((tag) => ({ tag })) }),
    });
    return res.status;
  }, tags);
}

describe('folders', () => {
  it('an owner files a tag in a coloured folder, favourites another, and deletes the folder with its tag', async () => {
    const owner = await createUser();
    const { page } = await newPage(browser);
    await logIn(page, owner.email, owner.password);
    expect(await addTagsByApi(page, ['Trial', 'Customer'])).toBeLessThan(300);

    await page.goto('/settings/tags');
    await page.getByRole('cell', { name: 'Trial', exact: true }).waitFor();
    const tree = page.getByRole('navigation', { name: 'Tag folders' });
    await tree.getByRole('button', { name: 'Item actions: Trial' }).waitFor();

    // A folder with a colour.
    await tree.getByRole('button', { name: 'New folder' }).click();
    const folderDialog = page.getByRole('dialog', { name: 'New folder' });
    await folderDialog.getByRole('textbox', { name: 'Folder name' }).fill('Lifecycle');
    await folderDialog.getByRole('radio', { name: '#12b886' }).click();
    expect(await folderDialog.getByRole('radio', { name: '#12b886' }).getAttribute('aria-checked')).toBe(
      'true',
    );
    await folderDialog.getByRole('button', { name: 'Create folder' }).click();
    await folderDialog.waitFor({ state: 'detached' });
    const lifecycle = tree.getByRole('group', { name: 'Lifecycle' });
    await lifecycle.waitFor();

    // Move one tag into it.
    await tree.getByRole('button', { name: 'Item actions: Trial' }).click();
    await page.getByRole('menuitem', { name: 'Move to folder…' }).click();
    const moveDialog = page.getByRole('dialog', { name: 'Move to folder' });
    const folderSelect = moveDialog.getByRole('textbox', { name: 'Folder' });
    expect(await folderSelect.inputValue()).toBe('No folder');
    // Already in no folder: nothing to move yet.
    expect(await moveDialog.getByRole('button', { name: 'Move', exact: true }).isDisabled()).toBe(true);
    await folderSelect.click();
    await page.getByRole('option', { name: 'No folder' }).waitFor();
    await page.getByRole('option', { name: 'Lifecycle' }).click();
    await screenshot(page, 'folders-move');
    await moveDialog.getByRole('button', { name: 'Move', exact: true }).click();
    await page.getByText('Moved to Lifecycle.').first().waitFor();
    await moveDialog.waitFor({ state: 'detached' });
    await lifecycle.getByRole('button', { name: 'Item actions: Trial' }).waitFor();

    // The server kept it there.
    await page.reload();
    await lifecycle.getByRole('button', { name: 'Item actions: Trial' }).waitFor();
    expect(await lifecycle.getByRole('button', { name: 'Item actions: Customer' }).count()).toBe(0);
    expect(await tree.getByRole('button', { name: 'Item actions: Customer' }).count()).toBe(1);
    // The move dialog now starts from where the tag is.
    await lifecycle.getByRole('button', { name: 'Item actions: Trial' }).click();
    await page.getByRole('menuitem', { name: 'Move to folder…' }).click();
    expect(await moveDialog.getByRole('textbox', { name: 'Folder' }).inputValue()).toBe('Lifecycle');
    await moveDialog.getByRole('button', { name: 'Cancel' }).click();
    await moveDialog.waitFor({ state: 'detached' });

    // Favourite the other tag.
    await tree.getByRole('button', { name: 'Add to favorites: Customer' }).click();
    await page.getByText('✅ Added to favorites.').first().waitFor();
    await tree.getByRole('button', { name: 'Remove from favorites: Customer' }).first().waitFor();
    await tree.getByText('Favorites', { exact: true }).waitFor();
    await page.reload();
    await tree.getByRole('button', { name: 'Remove from favorites: Customer' }).first().waitFor();
    await lifecycle.getByRole('button', { name: 'Item actions: Trial' }).waitFor();
    await screenshot(page, 'folders-tree');

    // Delete the folder: the tag inside goes with it, the other one stays.
    await tree.getByRole('button', { name: 'Folder actions: Lifecycle' }).click();
    await page.getByRole('menuitem', { name: 'Delete folder' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete folder “Lifecycle”?' });
    await confirm.getByText('The tags inside this folder are deleted too').waitFor();
    await confirm.getByRole('button', { name: 'Delete folder' }).click();
    await lifecycle.waitFor({ state: 'detached' });
    await page.getByRole('cell', { name: 'Trial', exact: true }).waitFor({ state: 'detached' });
    await page.getByRole('cell', { name: 'Customer', exact: true }).waitFor();
    await page.reload();
    await page.getByRole('cell', { name: 'Customer', exact: true }).waitFor();
    expect(await page.getByRole('cell', { name: 'Trial', exact: true }).count()).toBe(0);
    expect(await tree.getByRole('button', { name: 'Item actions: Trial' }).count()).toBe(0);
    await screenshot(page, 'folders-after-delete');
  });
});
