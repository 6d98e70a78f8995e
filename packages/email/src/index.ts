export {
  compileEmail,
  compileSources,
  asDocument,
  render,
  type CompiledEmail,
  type EmailSources,
} from './compile.ts';
export { parseSources } from './parsed.ts';
export { TemplateError, type EmailPart } from './errors.ts';
export { lintEmail, type LintContext } from './lint.ts';
export { defaultLimits } from './liquid.ts';
export { renderCompiled } from './render.ts';
export type {
  LinkRewriter,
  RenderableEmail,
  RenderAccount,
  RenderedMessage,
  RenderLimits,
  RenderOptions,
  RenderPerson,
} from './types.ts';
export { toMime, type MimeMessage } from './mime.ts';
export { dkimSign, type DkimKey } from './dkim.ts';
export {
  planEmail,
  type EmailPlan,
  type LinkTracking,
  type PlanOptions,
  type PlannedMessageOptions,
} from './message-plan.ts';
export { writePlanned } from './planned-message.ts';
