import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { registerOAuthRoutes, type OAuthSim } from '../oauth.js';
import { hangUp, type Simulator, type SimulatorState } from '../types.js';
import { ACCOUNT_MANAGEMENT, BUSINESS_INFORMATION, requiredQuery } from './discovery.js';
import { checkPlaceActionLink, checkServiceItems } from './rules.js';
import {
  accountIdOf,
  gbpError,
  locationFor,
  locationsOf,
  maskPaths,
  pick,
  sendFault,
  userFor,
  type GbpLocation,
  type NamedResource,
} from './store.js';
import { registerPerformance } from './performance.js';
import { registerSearchKeywords } from './search-keywords.js';
import { registerReviews } from './reviews.js';
import { registerV4 } from './v4.js';
import { registerAttributeMetadata } from './attribute-metadata.js';
import { registerVerifications } from './verifications.js';
import { registerGoogleBusinessLimits } from './limits.js';

export interface GoogleBusinessSimulatorOptions {
  /** Clock for post states and times. Default: real time. */
  now?: () => Date;
}

const SIM = 'Google Business';
const accounts = <T>(schema: string, body: T) => ACCOUNT_MANAGEMENT.checked(schema, body, SIM);
const info = <T>(schema: string, body: T) => BUSINESS_INFORMATION.checked(schema, body, SIM);

/**
 * Google OAuth and the Google Business Profile APIs on loopback. Paths are Google's, relative to the
 * simulator: `/o/oauth2/v2/auth`, `/token`, `/revoke`; `/v1/accounts` (mybusinessaccountmanagement);
 * `/v1/accounts/{a}/locations`, `/v1/locations/{l}` and `/v1/locations/{l}/attributes`
 * (mybusinessbusinessinformation); `/v1/locations/{l}/placeActionLinks` (mybusinessplaceactions);
 * `/v4/accounts/{a}/locations/{l}/localPosts|foodMenus|media` (mybusiness v4, v4.ts);
 * `/v1/locations/{l}:fetchMultiDailyMetricsTimeSeries` (businessprofileperformance, performance.ts);
 * `/v1/attributes` and PATCH `/v1/locations/{l}/placeActionLinks/{id}` (attribute-metadata.ts);
 * `/v1/locations/{l}/VoiceOfMerchantState`, `:fetchVerificationOptions`, `:verify`, `/verifications`
 * (mybusinessverifications, verifications.ts).
 * The v1 Account Management and Business Information calls and answers are held to Google's discovery
 * documents (discovery.ts); the v4 and Place Actions rules cite Google's reference pages (rules.ts).
 * The consenting user has one personal account with two locations, stable for the same login.
 */
export function googleBusinessSimulator(opts: GoogleBusinessSimulatorOptions = {}): Simulator {
  const now = () => (opts.now ? opts.now() : new Date()).getTime();
  return {
    platform: 'googlebusiness',
    now: () => now(),
    // Photos of a post are fetched by Google from their URL: publishing uploads nothing, so no `upload` op.
    // `insights` fails the Performance API's location metrics; local posts have no insights (no `_metrics`).
    faultOps: ['publish', 'token', 'lookup', 'delete', 'destinations', 'review', 'insights'],
    register(app: FastifyInstance, state: SimulatorState) {
      const oauth: OAuthSim = registerOAuthRoutes(app, state, {
        authorizePath: '/o/oauth2/v2/auth',
        tokenPath: '/token',
        revokePath: '/revoke',
        // https://developers.google.com/identity/protocols/oauth2/web-server: an hour's access token; the
        // refresh token comes with offline consent and does not rotate.
        accessTokenTtlSec: 3599,
        rotateRefreshTokens: false,
        tokenExtras: { token_type: 'Bearer' },
      });
      registerGoogleBusinessLimits(app, state, oauth);

      /** The query parameters the discovery method requires; false when one is missing (400 answered). */
      const hasRequired = (
        request: FastifyRequest,
        reply: FastifyReply,
        api: typeof ACCOUNT_MANAGEMENT,
        method: string,
      ): boolean => {
        const q = request.query as Record<string, string>;
        const missing = requiredQuery(api, method).find((k) => !q[k]);
        if (missing) gbpError(reply, 400, `Request contains an invalid argument: ${missing} is required.`, missing);
        return !missing;
      };

      // accounts.list: https://developers.google.com/my-business/reference/accountmanagement/rest/v1/accounts/list
      app.get('/v1/accounts', async (request, reply) => {
        const user = userFor(request, reply, oauth);
        if (!user) return reply;
        const fault = state.faults.take('destinations');
        if (sendFault(reply, fault)) return reply;
        if (fault === 'ambiguous') return hangUp(reply);
        const id = accountIdOf(user);
        return accounts('ListAccountsResponse', {
          accounts: [
            {
              name: `accounts/${id}`,
              accountName: user.name,
              type: 'PERSONAL',
              role: 'PRIMARY_OWNER',
              verificationState: 'UNVERIFIED',
              vettedState: 'NOT_VETTED',
            },
          ],
        });
      });

      const locationResource = (loc: GbpLocation, mask: string[]) =>
        pick({ name: `locations/${loc.id}`, ...loc.resource }, mask);

      // accounts.locations.list (readMask required)
      app.get('/v1/accounts/:a/locations', async (request, reply) => {
        const user = userFor(request, reply, oauth);
        if (!user) return reply;
        if (!hasRequired(request, reply, BUSINESS_INFORMATION, 'accounts.locations.list')) return reply;
        const { a } = request.params as { a: string };
        if (a !== accountIdOf(user)) return gbpError(reply, 403, 'The caller does not have permission');
        const fault = state.faults.take('destinations');
        if (sendFault(reply, fault)) return reply;
        if (fault === 'ambiguous') return hangUp(reply);
        const mask = maskPaths((request.query as Record<string, string>).readMask);
        const unknown = mask.find(
          (p) => !BUSINESS_INFORMATION.document.schemas.Location?.properties?.[p.split('.')[0]],
        );
        if (unknown) return gbpError(reply, 400, `Invalid field mask: ${unknown}`, 'read_mask');
        const locations = locationsOf(state, user);
        return info('ListLocationsResponse', {
          locations: locations.map((l) => locationResource(l, mask)),
          totalSize: locations.length,
        });
      });

      app.get('/v1/locations/:l', async (request, reply) => {
        const user = userFor(request, reply, oauth);
        if (!user) return reply;
        if (!hasRequired(request, reply, BUSINESS_INFORMATION, 'locations.get')) return reply;
        const loc = locationFor(state, reply, user, (request.params as { l: string }).l);
        if (!loc) return reply;
        return info('Location', locationResource(loc, maskPaths((request.query as Record<string, string>).readMask)));
      });

      // locations.patch: updateMask names what changes; the body is a Location.
      app.patch('/v1/locations/:l', async (request, reply) => {
        const user = userFor(request, reply, oauth);
        if (!user) return reply;
        if (!hasRequired(request, reply, BUSINESS_INFORMATION, 'locations.patch')) return reply;
        const loc = locationFor(state, reply, user, (request.params as { l: string }).l);
        if (!loc) return reply;
        const problems = BUSINESS_INFORMATION.check('Location', request.body ?? null, 'location');
        if (problems.length) return gbpError(reply, 400, problems[0].message);
        const services = checkServiceItems((request.body as Record<string, unknown>).serviceItems);
        if (services) return gbpError(reply, 400, services.message, services.field);
        const mask = maskPaths((request.query as Record<string, string>).updateMask);
        const body = request.body as Record<string, unknown>;
        // Read-only fields (metadata, name) cannot be in the mask.
        const bad = mask.find(
          (p) =>
            ['name', 'metadata'].includes(p.split('.')[0]) ||
            !BUSINESS_INFORMATION.document.schemas.Location?.properties?.[p.split('.')[0]],
        );
        if (bad) return gbpError(reply, 400, `Invalid field mask path: ${bad}`, 'update_mask');
        const validateOnly = (request.query as Record<string, string>).validateOnly === 'true';
        if (!validateOnly) {
          for (const path of mask) {
            const [top, sub] = path.split('.');
            if (sub)
              loc.resource[top] = {
                ...(loc.resource[top] ?? {}),
                [sub]: (body[top] as Record<string, unknown> | undefined)?.[sub],
              };
            else if (body[top] === undefined) delete loc.resource[top];
            else loc.resource[top] = structuredClone(body[top]);
          }
        }
        return info('Location', locationResource(loc, Object.keys({ name: 1, ...loc.resource })));
      });

      const attributesOf = (loc: GbpLocation) => ({
        name: `locations/${loc.id}/attributes`,
        attributes: loc.attributes,
      });

      app.get('/v1/locations/:l/attributes', async (request, reply) => {
        const user = userFor(request, reply, oauth);
        if (!user) return reply;
        const loc = locationFor(state, reply, user, (request.params as { l: string }).l);
        if (!loc) return reply;
        return info('Attributes', attributesOf(loc));
      });

      // locations.updateAttributes: attributes in the mask are set from the body, or deleted when absent from it.
      app.patch('/v1/locations/:l/attributes', async (request, reply) => {
        const user = userFor(request, reply, oauth);
        if (!user) return reply;
        if (!hasRequired(request, reply, BUSINESS_INFORMATION, 'locations.updateAttributes')) return reply;
        const loc = locationFor(state, reply, user, (request.params as { l: string }).l);
        if (!loc) return reply;
        const problems = BUSINESS_INFORMATION.check('Attributes', request.body ?? null, 'attributes');
        if (problems.length) return gbpError(reply, 400, problems[0].message);
        const mask = maskPaths((request.query as Record<string, string>).attributeMask);
        const bad = mask.find((p) => !/^attributes\/[a-z0-9_]+$/.test(p));
        if (bad) return gbpError(reply, 400, `Invalid attribute mask: ${bad}`, 'attribute_mask');
        const given = ((request.body as { attributes?: NamedResource[] }).attributes ?? []).filter((a) =>
          mask.includes(a.name),
        );
        loc.attributes = [...loc.attributes.filter((a) => !mask.includes(a.name)), ...structuredClone(given)];
        return info('Attributes', attributesOf(loc));
      });

      // Place Actions API v1: https://developers.google.com/my-business/reference/placeactions/rest/v1/locations.placeActionLinks
      app.get('/v1/locations/:l/placeActionLinks', async (request, reply) => {
        const user = userFor(request, reply, oauth);
        if (!user) return reply;
        const loc = locationFor(state, reply, user, (request.params as { l: string }).l);
        if (!loc) return reply;
        return loc.placeActionLinks.length ? { placeActionLinks: loc.placeActionLinks } : {};
      });

      app.post('/v1/locations/:l/placeActionLinks', async (request, reply) => {
        const user = userFor(request, reply, oauth);
        if (!user) return reply;
        const loc = locationFor(state, reply, user, (request.params as { l: string }).l);
        if (!loc) return reply;
        const problem = checkPlaceActionLink(request.body);
        if (problem) return gbpError(reply, 400, problem.message, problem.field);
        const body = request.body as Record<string, unknown>;
        // "The request is considered duplicate if the parent, placeActionLink.uri and
        // placeActionLink.place_action_type are the same as a previous request."
        if (loc.placeActionLinks.some((p) => p.uri === body.uri && p.placeActionType === body.placeActionType)) {
          return gbpError(reply, 409, 'Requested entity already exists');
        }
        const at = new Date(now()).toISOString();
        const link = {
          name: `locations/${loc.id}/placeActionLinks/${randomBytes(6).toString('hex')}`,
          providerType: 'MERCHANT',
          isEditable: true,
          uri: body.uri,
          placeActionType: body.placeActionType,
          isPreferred: body.isPreferred === true,
          createTime: at,
          updateTime: at,
        };
        loc.placeActionLinks.push(link);
        return link;
      });

      app.delete('/v1/locations/:l/placeActionLinks/:id', async (request, reply) => {
        const user = userFor(request, reply, oauth);
        if (!user) return reply;
        const { l, id } = request.params as { l: string; id: string };
        const loc = locationFor(state, reply, user, l);
        if (!loc) return reply;
        const i = loc.placeActionLinks.findIndex((p) => p.name === `locations/${loc.id}/placeActionLinks/${id}`);
        if (i < 0) return gbpError(reply, 404, 'Requested entity was not found.');
        if (!loc.placeActionLinks[i].isEditable) return gbpError(reply, 403, 'The place action link is not editable.');
        loc.placeActionLinks.splice(i, 1);
        return {};
      });

      registerV4(app, state, oauth, now);
      registerReviews(app, state, oauth, now);
      registerPerformance(app, state, oauth, now);
      registerSearchKeywords(app, state, oauth, now);
      registerAttributeMetadata(app, state, oauth, now);
      registerVerifications(app, state, oauth, now);
    },
  };
}
