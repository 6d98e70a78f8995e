import type { EmailTemplate } from '@herald/contracts';

/** The starter templates of the gallery (GET /v1/emails/templates). */
export const emailTemplates: EmailTemplate[] = [];
