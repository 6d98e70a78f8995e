import { z } from 'zod';

/**
 * Send times (issue 17): broadcasts in each recipient's time zone, quiet hours per account, pause and resume.
 * The arithmetic runs in SQL (migration 0019); these are the shapes and words both sides share.
 */

/** A wall-clock time of day, 'HH:MM' (24-hour). */
export const TimeOfDay = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'Use a time of day such as 21:00.');

/** Quiet hours of an account: no broadcast mail between start and end in the recipient's local time. */
export const QuietHours = z.object({
  enabled: z.boolean(),
  /** When quiet begins, 'HH:MM'. */
  start: z.string(),
  /** When quiet ends and held mail goes, 'HH:MM'. */
  end: z.string(),
});
export type QuietHours = z.infer<typeof QuietHours>;

export const sendTimeMessages = {
  quietHoursSaved: 'Quiet hours saved.',
  quietHoursOff: 'Quiet hours are off.',
  quietHoursSameTimes: 'Quiet hours must start and end at different times.',
  quietHoursForbidden: 'You need the emailSettings:write permission to change quiet hours.',
  quietHoursError: "Couldn't save quiet hours.",
  recipientTimeNeedsTime:
    "Pick the local time to send at: sending in each recipient's time zone needs a date and time.",
  paused: 'Broadcast paused. Messages already on their way still arrive.',
  resumed: 'Broadcast resumed.',
  notPausable: (label: string) =>
    `This broadcast is ${label.toLowerCase()}: only a sending broadcast can be paused or resumed.`,
  alreadyPaused: 'This broadcast is already paused.',
  notPaused: 'This broadcast is not paused.',
  pauseError: "Couldn't pause broadcast.",
  resumeError: "Couldn't resume broadcast.",
} as const;

/** PUT /v1/settings/quiet-hours: on or off, with the window (kept while off). */
export const QuietHoursBody = z
  .strictObject({ enabled: z.boolean(), start: TimeOfDay, end: TimeOfDay })
  .refine((body) => body.start !== body.end, {
    message: sendTimeMessages.quietHoursSameTimes,
    path: ['end'],
  });
export type QuietHoursBody = z.infer<typeof QuietHoursBody>;

export const QuietHoursResponse = z.object({ quietHours: QuietHours });
export const QuietHoursSavedResponse = z.object({ quietHours: QuietHours, message: z.string() });

/** A recipient-time send starts when the first zone (UTC+14) reaches the time and ends when the last (UTC−12) does. */
export const recipientWindowHours = { earliestOffset: 14, latestOffset: -12 } as const;
