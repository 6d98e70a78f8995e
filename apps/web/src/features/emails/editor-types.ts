import type { EmailEditorType } from '@herald/contracts';

/** How each editor is named and described wherever the app offers a choice. */
export const editorChoices: { type: EmailEditorType; label: string; description: string }[] = [
  { type: 'richtext', label: 'Rich text', description: 'Write like a letter: headings, lists, links.' },
  {
    type: 'dragdrop',
    label: 'Drag and drop',
    description: 'Build a layout from blocks: columns, images, buttons.',
  },
  { type: 'html', label: 'HTML code', description: 'Write or paste your own HTML, with a live preview.' },
];

export const editorLabel = (type: EmailEditorType) =>
  editorChoices.find((choice) => choice.type === type)?.label ?? type;

/** The document a blank rich-text email starts with: a greeting and the footer every marketing email needs. */
export const blankRichText = `<p>Hi {{ person.firstName | default: "there" }},</p><p></p><p>—<br>{{ account.name }}, {{ account.mailingAddress }}<br><a href="{{ unsubscribe_url }}">Unsubscribe</a></p>`;

/** A blank HTML email: a minimal document with the same footer. */
export const blankHtml = `<!DOCTYPE html>
<html>
<head>
<meta charset="utf-8">
<style>
  body { font-family: Helvetica, Arial, sans-serif; font-size: 16px; line-height: 1.6; color: #2b2f3a; }
  .footer { font-size: 12px; color: #5c6270; }
</style>
</head>
<body>
<p>Hi {{ person.firstName | default: "there" }},</p>
<p>Write your message here.</p>
<p class="footer">{{ account.name }}, {{ account.mailingAddress }} · <a href="{{ unsubscribe_url }}">Unsubscribe</a></p>
</body>
</html>`;
