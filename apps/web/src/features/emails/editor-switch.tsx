import type { EmailEditor, EmailEditorType } from '@herald/contracts';
import { Select, Text } from '@mantine/core';
import { modals } from '@mantine/modals';
import { editorChoices } from './editor-types.ts';
import { unwrapRichText, wrapRichText } from './editors/rich-text-layout.ts';

/** What carries over when the editor changes: the HTML always; rich text keeps only the text and its formatting. */
function convert(editor: EmailEditor, to: EmailEditorType): EmailEditor {
  if (to === 'html') return { type: 'html', state: null, html: editor.html };
  if (to === 'richtext')
    return { type: 'richtext', state: null, html: wrapRichText(unwrapRichText(editor.html)) };
  return { type: 'dragdrop', state: null, html: editor.html };
}

const warnings: Record<EmailEditorType, string> = {
  html: 'The HTML carries over as it is. Further changes are made in code.',
  richtext:
    'Only the text and its formatting carry over: columns, buttons and styling of the layout are lost.',
  dragdrop: 'The HTML is imported as blocks. Complex layouts may need touching up.',
};

export function EditorSwitch({
  editor,
  onSwitch,
  disabled,
}: {
  editor: EmailEditor;
  onSwitch: (editor: EmailEditor) => void;
  disabled: boolean;
}) {
  return (
    <Select
      aria-label="Editor"
      size="sm"
      w={170}
      disabled={disabled}
      allowDeselect={false}
      data={editorChoices.map((choice) => ({ value: choice.type, label: choice.label }))}
      value={editor.type}
      onChange={(next) => {
        if (!next || next === editor.type) return;
        const to = next as EmailEditorType;
        modals.openConfirmModal({
          title: `Switch to ${editorChoices.find((c) => c.type === to)?.label}?`,
          children: <Text size="sm">{warnings[to]}</Text>,
          labels: { confirm: 'Switch editor', cancel: 'Cancel' },
          onConfirm: () => onSwitch(convert(editor, to)),
        });
      }}
    />
  );
}
