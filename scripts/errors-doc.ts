// `npm run docs:errors`: writes docs/errors.md from the error-code catalogue (src/error-codes.ts).
// test/docs/errors.test.ts fails when the page and the catalogue differ, so run this after adding a code.
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ERROR_CODES, type ErrorCodeEntry, PLATFORM_ERROR_CODES } from '../src/error-codes.js';

export const ERRORS_PAGE = fileURLToPath(new URL('../docs/errors.md', import.meta.url));

const statusesOf = (entry: ErrorCodeEntry) => entry.statuses.join(', ');
const cell = (text: string) => text.replaceAll('|', '\\|');
const rows = (codes: Record<string, ErrorCodeEntry>) =>
  Object.entries(codes)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([code, entry]) => `| \`${code}\` | ${statusesOf(entry)} | ${cell(entry.summary)} |`);

/** The page, as the catalogue says it. */
export function renderErrorsPage(): string {
  return [
    '# Error codes',
    '',
    '<!-- Generated from src/error-codes.ts by `npm run docs:errors`; edit the catalogue, not this page. -->',
    '',
    'Every error answer is the envelope `{ "error": "...", "code": "...", "details": {...} }`: `error` is for a',
    'person to read and may change, `code` is stable and is what a program should branch on, and `details`',
    "carries the specifics (the offending `fields`, the platform's own error, a limit). The same catalogue is",
    'in the OpenAPI document, under `x-error-codes` of the `ErrorEnvelope` schema.',
    '',
    'A code can answer with more than one status when the same fact is a bad request in one route and a',
    "missing resource in another (an unknown account in a post's body is a 400, in a path a 404). `…` in a",
    'meaning stands for values the message names.',
    '',
    '| Code | Status | Meaning |',
    '|---|---|---|',
    ...rows(ERROR_CODES),
    '',
    '## Codes that name a platform',
    '',
    "`{platform}` is the platform's id, as in `not_telegram_account`.",
    '',
    '| Code | Status | Meaning |',
    '|---|---|---|',
    ...rows(PLATFORM_ERROR_CODES),
    '',
  ].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  fs.writeFileSync(ERRORS_PAGE, renderErrorsPage());
  console.log(`wrote ${ERRORS_PAGE}`);
}
