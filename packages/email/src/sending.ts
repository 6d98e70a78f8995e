/**
 * What a sender thread needs and no more: parse compiled sources, render, write MIME, sign. It leaves out the
 * CSS inliner and the HTML-to-text converter (compileSources runs once per email, elsewhere), so a thread that
 * imports this starts fast and stays small.
 */
export { parseSources, type CompiledEmail, type EmailSources } from './parsed.ts';
export { renderCompiled } from './render.ts';
export { TemplateError } from './errors.ts';
export { toMime } from './mime.ts';
export { dkimSign } from './dkim.ts';
export { planEmail, type EmailPlan } from './message-plan.ts';
export { writePlanned, writePlannedPieces } from './planned-message.ts';
export { joinPieces, type MimePieces } from './mime.ts';
