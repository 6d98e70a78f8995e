import {
  EmailAddress,
  emailMessages,
  type Email,
  type EmailDraft,
  type EmailEditor,
} from '@herald/contracts';
import type { EmailChanges } from './emails.api.ts';

/** The editable parts of an email, as the page holds them between saves. */
export interface EmailDraftState {
  name: string;
  subject: string;
  preheader: string;
  fromName: string;
  fromEmail: string;
  replyTo: string;
  /** The communication category; null files it under the account's default. */
  categoryId: number | null;
  editor: EmailEditor;
}

export function draftOf(email: Email): EmailDraftState {
  return {
    name: email.name,
    subject: email.subject,
    preheader: email.preheader,
    fromName: email.fromName,
    fromEmail: email.fromEmail,
    replyTo: email.replyTo ?? '',
    categoryId: email.categoryId,
    editor: email.editor,
  };
}

/** What rendering needs (preview, tests): unsaved changes included. */
export function renderableOf(draft: EmailDraftState): EmailDraft {
  return {
    name: draft.name,
    subject: draft.subject,
    preheader: draft.preheader,
    fromName: draft.fromName,
    fromEmail: draft.fromEmail,
    replyTo: draft.replyTo || null,
    html: draft.editor.html,
  };
}

/** The changes to save, the content always whole. */
export function changesOf(draft: EmailDraftState): EmailChanges {
  return {
    name: draft.name.trim() || emailMessages.defaultName,
    subject: draft.subject,
    preheader: draft.preheader,
    fromName: draft.fromName,
    fromEmail: draft.fromEmail,
    replyTo: draft.replyTo.trim() || null,
    categoryId: draft.categoryId,
    editor: draft.editor,
    html: draft.editor.html,
  };
}

/** An address as the API takes it: null when valid, else the contract's message. */
export function addressProblem(value: string): string | null {
  const parsed = EmailAddress.safeParse(value);
  return parsed.success ? null : (parsed.error.issues[0]?.message ?? 'Enter a valid email address.');
}

/** The subject and sender every email needs (the new-email dialog and the editor check the same). */
export function validate(draft: { subject: string; fromEmail: string }): {
  subject?: string;
  fromEmail?: string;
} {
  const fromEmail = !draft.fromEmail.trim() ? emailMessages.fromEmailNeeded : addressProblem(draft.fromEmail);
  return {
    ...(draft.subject.trim() ? {} : { subject: emailMessages.subjectNeeded }),
    ...(fromEmail ? { fromEmail } : {}),
  };
}
