import type { AiUseCase, EmailEditorType } from '@herald/contracts';

const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** A line of an outline: "- point", "* point" or "1. point". */
const bulletPattern = /^\s*(?:[-*•]|\d{1,2}[.)])\s+/;

/**
 * The suggestion as the current editor takes it. Rich text and HTML get paragraphs (and a list for an outline);
 * the drag-and-drop builder puts the text inside one text block, so there the paragraphs are kept with line breaks.
 */
export function bodyFragment(useCase: AiUseCase, content: string, editor: EmailEditorType): string {
  const blocks = content
    .replace(/\r\n?/g, '\n')
    .split(/\n\s*\n/)
    .map((block) => block.trim())
    .filter(Boolean);
  const lines = content
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  const isList =
    useCase === 'emailOutline' && lines.length > 0 && lines.every((line) => bulletPattern.test(line));
  if (editor === 'dragdrop') {
    if (isList) return lines.map((line) => `• ${escapeHtml(line.replace(bulletPattern, ''))}`).join('<br>');
    return blocks.map((block) => escapeHtml(block).replace(/\n/g, '<br>')).join('<br><br>');
  }
  if (isList)
    return `<ul>${lines.map((line) => `<li>${escapeHtml(line.replace(bulletPattern, ''))}</li>`).join('')}</ul>`;
  const html = blocks.map((block) => `<p>${escapeHtml(block).replace(/\n/g, '<br>')}</p>`).join('');
  return editor === 'html' ? `${html.replace(/<\/p>/g, '</p>\n')}` : html;
}

/** What Insert does in each editor, said next to the suggestions. */
export const insertHints: Record<EmailEditorType, string> = {
  richtext: 'Insert puts the text where the cursor is in the email.',
  html: 'Insert puts the text, as HTML paragraphs, where the cursor is in the code.',
  dragdrop: 'Insert adds the text to the selected text block, or as a new text block at the end.',
};
