import { describe, expect, it } from 'vitest';
import { bodyFragment } from './ai-insert.ts';

const email = 'Hi there,\n\nOur sale starts Monday & ends <Sunday>.\nSee you soon.\n\nThanks,\nAcme';
const outline = '- Say hello\n- Announce the sale\n1. Call to action';

describe('bodyFragment', () => {
  it('gives rich text paragraphs, with HTML characters escaped and single line breaks kept', () => {
    expect(bodyFragment('writeEmail', email, 'richtext')).toBe(
      '<p>Hi there,</p><p>Our sale starts Monday &amp; ends &lt;Sunday&gt;.<br>See you soon.</p><p>Thanks,<br>Acme</p>',
    );
  });

  it('puts each paragraph of the HTML editor on its own line', () => {
    expect(bodyFragment('writeEmail', 'One.\n\nTwo.', 'html')).toBe('<p>One.</p>\n<p>Two.</p>\n');
  });

  it('turns an outline into a list, and keeps line breaks inside one drag-and-drop text block', () => {
    expect(bodyFragment('emailOutline', outline, 'richtext')).toBe(
      '<ul><li>Say hello</li><li>Announce the sale</li><li>Call to action</li></ul>',
    );
    expect(bodyFragment('emailOutline', outline, 'dragdrop')).toBe(
      '• Say hello<br>• Announce the sale<br>• Call to action',
    );
    expect(bodyFragment('writeEmail', 'One.\n\nTwo.', 'dragdrop')).toBe('One.<br><br>Two.');
  });

  it('keeps an outline that is not a list as paragraphs', () => {
    expect(bodyFragment('emailOutline', 'Opening\n\nMain point', 'richtext')).toBe(
      '<p>Opening</p><p>Main point</p>',
    );
  });
});
