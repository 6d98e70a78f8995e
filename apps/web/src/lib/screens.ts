/**
 * The widths the layout changes at, in px: each names the narrowest screen that is no longer "below" it
 * (`useIsNarrow('tablet')` is true under 768 px). Mantine's own breakpoints (xs 576, sm 768, md 992…)
 * stay as they are for its responsive props; these are the ones the app's code asks about.
 */
export const screens = {
  /** Under this, dialogs go full screen and small bars stack: phones. */
  phone: 576,
  /** Under this, the flow editor and its drawers take the whole width: phones and small tablets. */
  tablet: 768,
  /** Under this, the top navigation collapses and list pages put their folders above the list. */
  desktop: 900,
  /** Under this, the HTML editor shows its code and preview one above the other. */
  wide: 1100,
} as const;

export type ScreenName = keyof typeof screens;
