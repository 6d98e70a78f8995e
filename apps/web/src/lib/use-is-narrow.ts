import { useMantineTheme } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { screens, type ScreenName } from './screens.ts';

/** The media query for screens narrower than the named width of the theme (lib/screens.ts, given to Mantine in app/theme.ts). */
export function narrowerThan(screen: ScreenName, widths: Record<ScreenName, number> = screens): string {
  return `(max-width: ${widths[screen] - 1}px)`;
}

/**
 * Whether the screen is narrower than one of the theme's named widths (`desktop`, 900 px, unless told).
 * The one way the app asks about the screen's width: no component writes a width of its own.
 */
export function useIsNarrow(screen: ScreenName = 'desktop'): boolean {
  const theme = useMantineTheme();
  const widths = (theme.other.screens as Record<ScreenName, number> | undefined) ?? screens;
  return useMediaQuery(narrowerThan(screen, widths), undefined, { getInitialValueInEffect: false }) ?? false;
}
