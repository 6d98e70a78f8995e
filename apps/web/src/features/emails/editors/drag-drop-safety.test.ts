import { describe, expect, it } from 'vitest';
import { safeProjectData } from './drag-drop-safety.ts';

const project = (components: unknown[]) => ({
  assets: [],
  styles: [],
  pages: [{ frames: [{ component: { type: 'wrapper', components } }] }],
});

describe('safeProjectData', () => {
  it('drops script-capable elements, handlers, script URLs, component scripts and frame heads', () => {
    const safe = safeProjectData({
      ...project([]),
      pages: [
        {
          frames: [
            {
              head: [{ tag: 'script', attributes: { src: 'https://evil.example/x.js' } }],
              component: { type: 'wrapper', components: [] },
            },
          ],
        },
      ],
    });
    expect(safe.pages[0]!.frames[0]).toEqual({ component: { type: 'wrapper', components: [] } });
    const components = safeProjectData(
      project([
        { tagName: 'img', attributes: { src: 'x', onerror: 'alert(1)', alt: 'kept' } },
        { tagName: 'SCRIPT', content: 'alert(2)' },
        { type: 'iframe', attributes: { src: 'https://example.com' } },
        {
          tagName: 'div',
          attributes: { srcdoc: '<script>alert(3)</script>', title: 'kept' },
          script: 'alert(4)',
        },
        { type: 'link', attributes: { href: ' java\tscript:alert(5)' }, content: 'a link' },
        { type: 'link', attributes: { href: 'https://example.com/ok' }, content: 'kept link' },
        { tagName: 'img', attributes: { src: 'data:text/html,<script>alert(6)</script>' } },
        { tagName: 'img', attributes: { src: 'data:image/png;base64,AAAA' } },
      ]),
    ).pages[0]!.frames[0]!.component.components;
    expect(components).toEqual([
      { tagName: 'img', attributes: { src: 'x', alt: 'kept' } },
      { tagName: 'div', attributes: { title: 'kept' } },
      { type: 'link', attributes: {}, content: 'a link' },
      { type: 'link', attributes: { href: 'https://example.com/ok' }, content: 'kept link' },
      { tagName: 'img', attributes: {} },
      { tagName: 'img', attributes: { src: 'data:image/png;base64,AAAA' } },
    ]);
  });

  it('sends raw HTML content through the builder parser instead of the canvas, and leaves text and text nodes alone', () => {
    const components = safeProjectData(
      project([
        { type: 'text', content: '<img src=x onerror=alert(1)>' },
        { type: 'text', content: 'plain words', components: [] },
        { type: 'textnode', content: '<b>shown as text</b>' },
        { type: 'text', content: '<b>x</b>', components: [{ type: 'textnode', content: 'y' }] },
      ]),
    ).pages[0]!.frames[0]!.component.components;
    expect(components).toEqual([
      { type: 'text', components: '<img src=x onerror=alert(1)>' },
      { type: 'text', content: 'plain words', components: [] },
      { type: 'textnode', content: '<b>shown as text</b>' },
      { type: 'text', components: [{ components: '<b>x</b>' }, { type: 'textnode', content: 'y' }] },
    ]);
    expect(safeProjectData(null)).toBeNull();
  });
});
