import type { RouteDef } from '../../http/route.ts';

/** The AI writer (issue 21): GET and POST /v1/ai-writer. */
export const aiWriterRoutes: RouteDef[] = [];
