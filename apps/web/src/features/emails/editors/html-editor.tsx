import { html as htmlLanguage } from '@codemirror/lang-html';
import { Box, Paper, SimpleGrid, Text } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import CodeMirror, { EditorView, type ReactCodeMirrorRef } from '@uiw/react-codemirror';
import { useEffect, useRef } from 'react';
import { PreviewFrame } from '../preview-frame.tsx';
import { usePreview } from '../emails.api.ts';
import type { EditorProps } from './editor-props.ts';
import { useIsNarrow } from '../../../lib/use-is-narrow.ts';

const extensions = [
  htmlLanguage(),
  EditorView.lineWrapping,
  // A name for screen readers, and a tab stop, so keyboard users reach the code.
  EditorView.contentAttributes.of({ 'aria-label': 'Email HTML', tabindex: '0' }),
];

/** HTML code: CodeMirror beside a live preview of the rendered email (sample data, CSS inlined). */
export default function HtmlEditor({
  value,
  onChange,
  readOnly,
  onInsertReady,
  subject,
}: EditorProps & { subject: string }) {
  const ref = useRef<ReactCodeMirrorRef>(null);
  const isNarrow = useIsNarrow('wide');
  const [html] = useDebouncedValue(value.html, 400);
  const preview = usePreview({ subject: subject || ' ', html }, null);

  useEffect(() => {
    onInsertReady((text) => {
      const view = ref.current?.view;
      if (!view) return;
      view.dispatch(view.state.replaceSelection(text));
      view.focus();
    });
    return () => onInsertReady(null);
  }, [onInsertReady]);

  return (
    <SimpleGrid cols={isNarrow ? 1 : 2} spacing="md">
      <Paper withBorder radius="md" style={{ overflow: 'hidden' }}>
        <CodeMirror
          ref={ref}
          value={value.html}
          height={isNarrow ? '420px' : '640px'}
          extensions={extensions}
          editable={!readOnly}
          readOnly={readOnly}
          basicSetup={{ foldGutter: true, highlightActiveLine: false, highlightActiveLineGutter: false }}
          onChange={(html) => onChange({ type: 'html', state: null, html })}
        />
      </Paper>
      <Box>
        <Text size="xs" c="dimmed" mb={4}>
          Live preview with sample data
        </Text>
        <PreviewFrame
          html={preview.data?.html}
          width="100%"
          height={isNarrow ? 420 : 620}
          title="Live preview"
          error={preview.error}
        />
      </Box>
    </SimpleGrid>
  );
}
