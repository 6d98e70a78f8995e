import {
  colorsTuple,
  createTheme,
  DEFAULT_THEME,
  defaultVariantColorsResolver,
  parseThemeColor,
  type MantineColorsTuple,
  type VariantColorsResolver,
} from '@mantine/core';
import { screens, type ScreenName } from '../lib/screens.ts';

/** Mantine's palette with some shades replaced. */
function withShades(name: string, shades: Record<number, string>): MantineColorsTuple {
  const palette = DEFAULT_THEME.colors[name];
  if (!palette) throw new Error(`Mantine has no palette named ${name}`);
  return colorsTuple(palette.map((shade, index) => shades[index] ?? shade));
}

/**
 * Every colour that carries text meets WCAG AA (4.5:1; docs/web-app.md has the table). Mantine draws
 * filled, light, subtle and outline variants, links and `c="red"` text from the primary shade, which is 8
 * here: each palette's shade 8 reads at 4.5:1 or more on white, on gray.0 and on its own light tint, and
 * takes white text. Mantine's shades 8 and 9 of the brighter hues fall short, so they are darkened below;
 * yellow and lime are left as they are and must carry no text. Shades 0–6 (tints, borders, icons) are
 * unchanged apart from gray.5 (placeholders), gray.6 (dimmed text) and red.6 (field errors).
 */
const colors = {
  gray: withShades('gray', { 5: '#6e757d', 6: '#646c73' }),
  red: withShades('red', { 6: '#d52e2e', 7: '#c92a2a', 8: '#c31d1d', 9: '#a61b1b' }),
  pink: withShades('pink', { 8: '#bc2459', 9: '#a41f4e' }),
  blue: withShades('blue', { 8: '#1768b2', 9: '#145b9b' }),
  cyan: withShades('cyan', { 8: '#0a7081', 9: '#096270' }),
  teal: withShades('teal', { 8: '#077352', 9: '#066548' }),
  green: withShades('green', { 8: '#237532', 9: '#1f672c' }),
  orange: withShades('orange', { 8: '#ae4309', 9: '#983b08' }),
};

/**
 * Light variants (tinted badges, avatars, buttons) write in shade 9 rather than 8: the tint often sits on
 * gray.0 or on a hovered menu item's gray.1, where shade 8 on the tint drops to about 4.45:1.
 */
const variantColorResolver: VariantColorsResolver = (input) => {
  const resolved = defaultVariantColorsResolver(input);
  if (input.variant !== 'light' || !input.color) return resolved;
  const parsed = parseThemeColor({ color: input.color, theme: input.theme });
  if (!parsed.isThemeColor || parsed.shade !== undefined) return resolved;
  return { ...resolved, color: `var(--mantine-color-${parsed.color}-9)` };
};

export { screens, type ScreenName };

export const theme = createTheme({
  primaryColor: 'indigo',
  // Who asks the system for less motion gets no transitions (modals, drawers, menus, collapses open at once).
  respectReducedMotion: true,
  other: { screens },
  primaryShade: { light: 8, dark: 8 },
  colors,
  variantColorResolver,
  defaultRadius: 'md',
  fontFamily:
    'Inter, ui-sans-serif, system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, "Noto Sans", sans-serif',
  headings: { fontWeight: '700' },
  components: {
    Button: { defaultProps: { radius: 'md' } },
    TextInput: { defaultProps: { size: 'md' } },
    PasswordInput: { defaultProps: { size: 'md' } },
    Select: { defaultProps: { size: 'md' } },
    NativeSelect: { defaultProps: { size: 'md' } },
    Textarea: { defaultProps: { size: 'md' } },
    // Mantine's close buttons are icons without a name.
    Modal: { defaultProps: { closeButtonProps: { 'aria-label': 'Close' } } },
    Drawer: { defaultProps: { closeButtonProps: { 'aria-label': 'Close' } } },
    ModalCloseButton: { defaultProps: { 'aria-label': 'Close' } },
    DrawerCloseButton: { defaultProps: { 'aria-label': 'Close' } },
    Notification: { defaultProps: { closeButtonProps: { 'aria-label': 'Close notification' } } },
    // The focus placeholder is a div[tabindex] inside role="menu", which allows only menu items; without it
    // an open menu focuses its first item, as the WAI-ARIA menu button pattern has it.
    Menu: { defaultProps: { withInitialFocusPlaceholder: false } },
  },
});
