import { RichTextEditor } from '@mantine/tiptap';
import '@mantine/tiptap/styles.css';
import { Paper } from '@mantine/core';
import { useEditor } from '@tiptap/react';
import StarterKit from '@tiptap/starter-kit';
import { useEffect } from 'react';
import type { EditorProps } from './editor-props.ts';
import { unwrapRichText, wrapRichText } from './rich-text-layout.ts';

/** Links may hold a merge tag ({{ unsubscribe_url }}) as well as an ordinary URL. */
const isMergeTag = (url: string) => /^\s*\{\{[\s\S]*\}\}\s*$/.test(url);

/** Rich text: TipTap with the app's toolbar; it keeps its JSON document and sends the HTML in an email-safe frame. */
export default function RichTextEmailEditor({ value, onChange, readOnly, onInsertReady }: EditorProps) {
  const editor = useEditor({
    extensions: [
      StarterKit.configure({
        link: {
          openOnClick: false,
          autolink: true,
          protocols: ['http', 'https', 'mailto'],
          isAllowedUri: (url, context) => isMergeTag(url) || context.defaultValidate(url),
        },
      }),
    ],
    content: (value.state as object | null) ?? unwrapRichText(value.html),
    editable: !readOnly,
    editorProps: { attributes: { 'aria-label': 'Email text', role: 'textbox', 'aria-multiline': 'true' } },
    immediatelyRender: true,
    shouldRerenderOnTransaction: false,
    onUpdate: ({ editor: current }) => {
      onChange({ type: 'richtext', state: current.getJSON(), html: wrapRichText(current.getHTML()) });
    },
  });

  useEffect(() => {
    // Without emitting an update: TipTap's default does, and the email would read as changed the moment it opens.
    editor.setEditable(!readOnly, false);
  }, [editor, readOnly]);

  useEffect(() => {
    onInsertReady((text) => editor.chain().focus().insertContent(text).run());
    return () => onInsertReady(null);
  }, [editor, onInsertReady]);

  return (
    <Paper radius="md" maw={760} mx="auto">
      <RichTextEditor editor={editor} variant="subtle" aria-label="Email text">
        {!readOnly && (
          <RichTextEditor.Toolbar sticky stickyOffset={0}>
            <RichTextEditor.ControlsGroup>
              <RichTextEditor.Bold />
              <RichTextEditor.Italic />
              <RichTextEditor.Underline />
              <RichTextEditor.Strikethrough />
              <RichTextEditor.ClearFormatting />
            </RichTextEditor.ControlsGroup>
            <RichTextEditor.ControlsGroup>
              <RichTextEditor.H1 />
              <RichTextEditor.H2 />
              <RichTextEditor.H3 />
            </RichTextEditor.ControlsGroup>
            <RichTextEditor.ControlsGroup>
              <RichTextEditor.Blockquote />
              <RichTextEditor.Hr />
              <RichTextEditor.BulletList />
              <RichTextEditor.OrderedList />
            </RichTextEditor.ControlsGroup>
            <RichTextEditor.ControlsGroup>
              <RichTextEditor.Link />
              <RichTextEditor.Unlink />
            </RichTextEditor.ControlsGroup>
            <RichTextEditor.ControlsGroup>
              <RichTextEditor.Undo />
              <RichTextEditor.Redo />
            </RichTextEditor.ControlsGroup>
          </RichTextEditor.Toolbar>
        )}
        <RichTextEditor.Content mih={360} />
      </RichTextEditor>
    </Paper>
  );
}
