import type { AiUseCase, AiWriterParameters } from '@herald/contracts';

/** The chat messages sent to the model, and the most tokens its answer may use. */
export interface AiPrompt {
  system: string;
  user: string;
  maxTokens: number;
}

const shared =
  'You are a copywriter for a marketing team. You write in the language of the brief. ' +
  'Answer with the requested text only: no preamble, no explanations, no Markdown headings, nothing in square brackets for the reader to fill in.';

const instructions: Record<AiUseCase, { task: string; maxTokens: number }> = {
  subjectLine: {
    task:
      'Write 5 different subject lines for a marketing email. Put each on its own line, with no numbering, no quotes ' +
      'and no emoji unless the tone asks for them. Keep each under 70 characters.',
    maxTokens: 300,
  },
  writeEmail: {
    task:
      'Write the whole body of a marketing email: a greeting, three or four short plain paragraphs and a sign-off from ' +
      'the company. Plain text, paragraphs separated by one empty line, no subject line.',
    maxTokens: 1200,
  },
  emailOutline: {
    task:
      'Write an outline for a marketing email: 4 to 7 bullet points, each starting with "- ", in the order the email ' +
      'should follow (opening, main points, call to action, sign-off). One short sentence per bullet.',
    maxTokens: 600,
  },
};

/** Build the prompt for one use case from the marketer's brief. */
export function buildPrompt(useCase: AiUseCase, parameters: AiWriterParameters): AiPrompt {
  const { task, maxTokens } = instructions[useCase];
  const lines = [
    task,
    '',
    `Company: ${parameters.companyName}`,
    `Tone: ${parameters.tone ? parameters.tone : 'friendly and clear'}`,
    `What the email is about: ${parameters.emailAbout}`,
  ];
  return { system: shared, user: lines.join('\n'), maxTokens };
}

/** At most this many subject lines are kept from one answer. */
const maxSubjectLines = 10;

/**
 * Turn the model's answer into the suggestions to store: one per subject line, or the whole text for an email or an
 * outline. Returns an empty list when nothing usable came back.
 */
export function splitAnswer(useCase: AiUseCase, answer: string): string[] {
  const text = answer.replace(/\r\n?/g, '\n').trim();
  if (!text) return [];
  if (useCase !== 'subjectLine') return [text];
  const seen = new Set<string>();
  const lines: string[] = [];
  for (const raw of text.split('\n')) {
    const line = cleanSubjectLine(raw);
    if (!line || seen.has(line.toLowerCase())) continue;
    seen.add(line.toLowerCase());
    lines.push(line);
    if (lines.length === maxSubjectLines) break;
  }
  return lines;
}

/** Models often number or quote the lines in spite of the prompt; the subject keeps only the words. */
function cleanSubjectLine(raw: string): string {
  let line = raw.trim();
  line = line.replace(/^(?:[-*•]\s+|\d{1,2}[.)]\s+)/, '');
  line = line.replace(/^(?:subject(?: line)?\s*\d*\s*:\s*)/i, '');
  line = line.replace(/^\*\*(.*)\*\*$/, '$1');
  line = line.replace(/^["“'](.*)["”']$/, '$1');
  return line.trim().slice(0, 200);
}
