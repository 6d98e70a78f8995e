/**
 * The journeys wait for what is not on the page (a database row, a mail, a count) with the server tests' `until`
 * (docs/operations.md, "Tests, CI and the suites"); Playwright's locators wait for the page themselves.
 */
export { until, type Truthy, type UntilOptions } from '../../apps/server/test/until.ts';
