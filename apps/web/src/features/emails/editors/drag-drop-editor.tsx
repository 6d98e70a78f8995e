import 'grapesjs/dist/css/grapes.min.css';
import { Paper } from '@mantine/core';
import grapesjs, { type Editor } from 'grapesjs';
import newsletterPreset from 'grapesjs-preset-newsletter';
import { useEffect, useRef } from 'react';
import { safeProjectData } from './drag-drop-safety.ts';
import type { EditorProps } from './editor-props.ts';

/** The body of a document, for HTML that came from elsewhere (a template, the HTML editor). */
function bodyOf(html: string): string {
  const match = /<body[^>]*>([\s\S]*)<\/body>/i.exec(html);
  const styles = [...html.matchAll(/<style[^>]*>[\s\S]*?<\/style>/gi)].map((m) => m[0]).join('\n');
  return styles + (match ? match[1]! : html);
}

/** What the editor sends: its tables with the CSS inlined by the newsletter preset, in a whole document. */
function documentOf(editor: Editor): string {
  const inlined = String(editor.runCommand('gjs-get-inlined-html') ?? editor.getHtml());
  return `<!DOCTYPE html>\n<html>\n<head>\n<meta charset="utf-8">\n<meta name="viewport" content="width=device-width, initial-scale=1">\n</head>\n<body>\n${inlined}\n</body>\n</html>`;
}

/**
 * Drag and drop: GrapesJS with the newsletter preset (table blocks, CSS inlined on export), entirely
 * offline — no storage server, no uploads, no telemetry, no icon font or images from a CDN.
 */
export default function DragDropEditor({ value, onChange, readOnly, onInsertReady }: EditorProps) {
  const container = useRef<HTMLDivElement>(null);
  const latest = useRef(onChange);
  latest.current = onChange;

  useEffect(() => {
    if (!container.current) return;
    // The saved project is only as safe as the client that stored it: nothing in it may run in the canvas.
    const state = safeProjectData(value.state as Record<string, unknown> | null);
    const editor = grapesjs.init({
      container: container.current,
      height: '680px',
      width: 'auto',
      storageManager: false,
      telemetry: false,
      cssIcons: '',
      assetManager: { upload: false },
      plugins: [newsletterPreset],
      pluginsOpts: { [newsletterPreset as unknown as string]: {} },
      ...(state
        ? { projectData: state }
        : {
            components:
              bodyOf(value.html) ||
              '<table style="width:100%"><tr><td style="padding:24px">Drag blocks here</td></tr></table>',
          }),
    });
    // Blocks whose sample images live on a remote server stay out: nothing loads from elsewhere.
    for (const id of ['grid-items', 'list-items']) editor.Blocks.remove(id);
    let timer: number | undefined;
    const changed = () => {
      window.clearTimeout(timer);
      timer = window.setTimeout(
        () => latest.current({ type: 'dragdrop', state: editor.getProjectData(), html: documentOf(editor) }),
        300,
      );
    };
    editor.on('load', () => {
      // Names and tab stops GrapesJS leaves out: the canvas frame and its scrolling side panel.
      editor.Canvas.getFrameEl()?.setAttribute('title', 'Email canvas');
      container.current
        ?.querySelectorAll<HTMLElement>('.gjs-pn-views-container, .gjs-blocks-c')
        .forEach((element) => element.setAttribute('tabindex', '0'));
      if (readOnly) editor.runCommand('preview');
      editor.on('update', changed);
      // Content that came in as HTML is saved in the editor's own form as soon as it loads.
      if (!state) changed();
    });
    onInsertReady((text) => {
      const selected = editor.getSelected();
      if (selected && selected.is('text'))
        selected.components(`${selected.toHTML().replace(/^<[^>]+>|<\/[^>]+>$/g, '')} ${text}`);
      else editor.addComponents(`<p style="padding: 10px">${text}</p>`);
      changed();
    });
    return () => {
      window.clearTimeout(timer);
      onInsertReady(null);
      editor.destroy();
    };
    // The editor is created once per email; later props changes come from the editor itself.
  }, []);

  return (
    <Paper withBorder radius="md" style={{ overflow: 'hidden' }}>
      <div ref={container} aria-label="Drag-and-drop email builder" />
    </Paper>
  );
}
