import { Discovery, readDiscovery } from '../discovery.js';

/*
 * Google's official discovery documents of the v1 APIs the simulator serves (committed next to this
 * file, revision 2026-05-31): My Business Account Management (accounts), My Business Business
 * Information (locations, attributes) and Business Profile Performance (location metrics). Requests
 * and the simulator's answers are held to them through the shared Google discovery module
 * (../discovery.ts).
 */

const at = (file: string) => () =>
  readDiscovery(import.meta.url, `./discovery/${file}`, `../../../src/sandbox/googlebusiness/discovery/${file}`);

export const ACCOUNT_MANAGEMENT = new Discovery(at('mybusinessaccountmanagement-v1.json'));
export const BUSINESS_INFORMATION = new Discovery(at('mybusinessbusinessinformation-v1.json'));

/**
 * The query parameters a method says are required (`Required.` in their description, as these documents
 * mark `readMask` and `updateMask`, or `required: true`).
 */
export function requiredQuery(api: Discovery, method: string): string[] {
  const params = api.method(method).parameters ?? {};
  return Object.entries(params)
    .filter(([, p]) => p.location === 'query' && (p.required || /^Required\./.test(p.description ?? '')))
    .map(([k]) => k);
}

/** The Business Profile Performance API (location metrics by day), same revision, served by performance.ts. */
export const PERFORMANCE = new Discovery(at('businessprofileperformance-v1.json'));
