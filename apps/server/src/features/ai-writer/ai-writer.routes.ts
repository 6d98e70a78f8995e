import { AiSuggestionList, AiWriterRequest } from '@herald/contracts';
import { route, type RouteDef } from '../../http/route.ts';
import { generateAiSuggestions, listAiSuggestions } from './ai-writer.service.ts';

/** The AI writer (docs/ai-writer.md): drafting is writing email content, reading the drafts is reading emails. */
export const aiWriterRoutes: RouteDef[] = [
  route({
    method: 'GET',
    url: '/v1/ai-writer',
    auth: 'session',
    scopes: ['emails:read'],
    summary: 'AI writer suggestions, newest first',
    response: AiSuggestionList,
    handler: ({ services, db, session }) => listAiSuggestions(services, db, session),
  }),
  route({
    method: 'POST',
    url: '/v1/ai-writer',
    auth: 'session',
    scopes: ['emails:write'],
    summary: 'Draft subject lines, an email or an outline with the AI model',
    body: AiWriterRequest,
    response: AiSuggestionList,
    status: 201,
    example: {
      useCase: 'subjectLine',
      parameters: { emailAbout: 'Our spring sale starts Monday', companyName: 'Acme', tone: 'playful' },
    },
    handler: ({ services, db, session, body }) => generateAiSuggestions(services, db, session, body),
  }),
];
