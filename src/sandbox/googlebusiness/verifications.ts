import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { OAuthSim } from '../oauth.js';
import { hangUp, type SimulatorState } from '../types.js';
import { digits, gbpError, locationFor, sendFault, userFor, type GbpLocation } from './store.js';

/*
 * The My Business Verifications API v1 (mybusinessverifications.googleapis.com), from its discovery
 * document (revision 20220215) and reference pages:
 * https://developers.google.com/my-business/reference/verifications/rest
 * - `GET /v1/locations/{l}/VoiceOfMerchantState` (locations.getVoiceOfMerchantState): `{hasVoiceOfMerchant,
 *   hasBusinessAuthority, verify?: {hasPendingVerification}}`;
 * - `GET /v1/locations/{l}/verifications?pageSize&pageToken` (verifications.list, "ordered by create
 *   time"; pageSize 1..100, default 100): `{verifications[{name, method, state, createTime}], nextPageToken?}`;
 * - `POST /v1/locations/{l}:fetchVerificationOptions {languageCode (required), context?}`: `{options[
 *   {verificationMethod, phoneNumber? | addressData? | emailData?}]}`; `context` (a ServiceBusinessContext)
 *   is "INVALID_ARGUMENT ... if it is set for other business types" than CUSTOMER_LOCATION_ONLY, and the
 *   simulated locations have a storefront;
 * - `POST /v1/locations/{l}:verify {method (required), languageCode?, phoneNumber?, emailAddress?,
 *   mailerContact?, context?, token?}`: the phone number must be one of the eligible options, an email
 *   address must be on the offered domain; answers `{verification}` PENDING (AUTO would be COMPLETED at
 *   once, but no simulated location is eligible for it);
 * - `POST /v1/locations/{l}/verifications/{v}:complete {pin (required)}`: completes a PENDING
 *   verification; answers `{verification}` COMPLETED, and the location gains Voice of Merchant.
 * The seeded first location (the cafe) is verified; the second (the shop) is not. The PIN Google would
 * post, call, text or mail is `verificationPin(name)` (tests read it there). `POST /_faults {op:
 * 'lookup'}` fails the Voice of Merchant state read.
 */

interface GbpVerification {
  name: string;
  method: string;
  state: 'PENDING' | 'COMPLETED' | 'FAILED';
  createTime: string;
}

const METHODS = ['ADDRESS', 'EMAIL', 'PHONE_CALL', 'SMS', 'AUTO', 'VETTED_PARTNER'];
const VERIFY_FIELDS = ['method', 'languageCode', 'context', 'emailAddress', 'mailerContact', 'phoneNumber', 'token'];
const EMAIL_DOMAIN = 'example.com';

/** The PIN sent for verification `name` (`locations/{l}/verifications/{v}`): five digits, stable. */
export const verificationPin = (name: string) => digits(`pin:${name}`, 5);

/** Each location's verifications, oldest first; the first seeded location starts verified. */
function verificationsOf(state: SimulatorState, loc: GbpLocation): GbpVerification[] {
  let all = state.data.get('googlebusiness:verifications') as Map<string, GbpVerification[]> | undefined;
  if (!all) {
    all = new Map();
    state.data.set('googlebusiness:verifications', all);
  }
  let list = all.get(loc.id);
  if (!list) {
    list =
      loc.resource.storeCode === 'STORE-1'
        ? [
            {
              name: `locations/${loc.id}/verifications/${digits(`verification:${loc.id}`, 13)}`,
              method: 'ADDRESS',
              state: 'COMPLETED',
              createTime: '2024-01-15T10:00:00Z',
            },
          ]
        : [];
    all.set(loc.id, list);
  }
  return list;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function optionsFor(loc: GbpLocation) {
  const phone = String(loc.resource.phoneNumbers?.primaryPhone ?? '');
  return [
    {
      verificationMethod: 'ADDRESS',
      addressData: {
        business: String(loc.resource.title ?? ''),
        address: loc.resource.storefrontAddress,
        expectedDeliveryDaysRegion: 14,
      },
    },
    { verificationMethod: 'PHONE_CALL', phoneNumber: phone },
    { verificationMethod: 'SMS', phoneNumber: phone },
    { verificationMethod: 'EMAIL', emailData: { domain: EMAIL_DOMAIN, user: 'owner', isUserNameEditable: true } },
  ];
}

const pageToken = (offset: number) => Buffer.from(`v:${offset}`).toString('base64url');
function offsetOf(token: string | undefined): number | null {
  if (!token) return 0;
  const m = /^v:(\d+)$/.exec(Buffer.from(token, 'base64url').toString('utf8'));
  return m ? Number(m[1]) : null;
}

export function registerVerifications(
  app: FastifyInstance,
  state: SimulatorState,
  oauth: OAuthSim,
  now: () => number,
): void {
  const locationOf = (request: FastifyRequest, reply: FastifyReply): GbpLocation | null => {
    const user = userFor(request, reply, oauth);
    if (!user) return null;
    return locationFor(state, reply, user, (request.params as { l: string }).l);
  };
  const bodyOf = (request: FastifyRequest, reply: FastifyReply, allowed: string[]): Record<string, unknown> | null => {
    const body = request.body;
    if (!isObject(body)) {
      gbpError(reply, 400, 'Invalid JSON payload received. Expected an object.');
      return null;
    }
    const unknown = Object.keys(body).find((k) => !allowed.includes(k));
    if (unknown) {
      gbpError(reply, 400, `Invalid JSON payload received. Unknown name "${unknown}": Cannot find field.`);
      return null;
    }
    return body;
  };

  app.get('/v1/locations/:l/VoiceOfMerchantState', async (request, reply) => {
    const loc = locationOf(request, reply);
    if (!loc) return reply;
    const fault = state.faults.take('lookup');
    if (sendFault(reply, fault)) return reply;
    if (fault === 'ambiguous') return hangUp(reply);
    const list = verificationsOf(state, loc);
    const verified = list.some((v) => v.state === 'COMPLETED');
    return verified
      ? { hasVoiceOfMerchant: true, hasBusinessAuthority: true }
      : {
          hasVoiceOfMerchant: false,
          hasBusinessAuthority: false,
          verify: { hasPendingVerification: list.some((v) => v.state === 'PENDING') },
        };
  });

  app.get('/v1/locations/:l/verifications', async (request, reply) => {
    const loc = locationOf(request, reply);
    if (!loc) return reply;
    const q = request.query as Record<string, string>;
    const size = q.pageSize === undefined ? 100 : Number(q.pageSize);
    if (!Number.isInteger(size) || size < 1 || size > 100)
      return gbpError(reply, 400, 'Request contains an invalid argument.', 'page_size');
    const offset = offsetOf(q.pageToken);
    if (offset === null) return gbpError(reply, 400, 'Request contains an invalid argument.', 'page_token');
    const list = verificationsOf(state, loc);
    const page = list.slice(offset, offset + size);
    return {
      ...(page.length ? { verifications: page } : {}),
      ...(offset + size < list.length ? { nextPageToken: pageToken(offset + size) } : {}),
    };
  });

  app.post('/v1/locations/:l(^\\d+)::fetchVerificationOptions', async (request, reply) => {
    const loc = locationOf(request, reply);
    if (!loc) return reply;
    const body = bodyOf(request, reply, ['languageCode', 'context']);
    if (!body) return reply;
    if (typeof body.languageCode !== 'string' || !body.languageCode)
      return gbpError(reply, 400, 'Request contains an invalid argument: language_code is required.', 'language_code');
    if (body.context !== undefined)
      return gbpError(
        reply,
        400,
        'Request contains an invalid argument: context can only be set for CUSTOMER_LOCATION_ONLY businesses.',
        'context',
      );
    return { options: optionsFor(loc) };
  });

  app.post('/v1/locations/:l(^\\d+)::verify', async (request, reply) => {
    const loc = locationOf(request, reply);
    if (!loc) return reply;
    const body = bodyOf(request, reply, VERIFY_FIELDS);
    if (!body) return reply;
    if (!(METHODS as readonly unknown[]).includes(body.method))
      return gbpError(reply, 400, 'Request contains an invalid argument: method is required.', 'method');
    if (body.context !== undefined)
      return gbpError(
        reply,
        400,
        'Request contains an invalid argument: context can only be set for CUSTOMER_LOCATION_ONLY businesses.',
        'context',
      );
    const option = optionsFor(loc).find((o) => o.verificationMethod === body.method);
    if (!option)
      return gbpError(
        reply,
        400,
        `Request contains an invalid argument: ${body.method} verification is not available for this location.`,
        'method',
      );
    if ((body.method === 'PHONE_CALL' || body.method === 'SMS') && body.phoneNumber !== option.phoneNumber) {
      return gbpError(
        reply,
        400,
        'Request contains an invalid argument: phone_number must be one of the eligible options.',
        'phone_number',
      );
    }
    if (
      body.method === 'EMAIL' &&
      !(
        typeof body.emailAddress === 'string' &&
        new RegExp(`^[^@\\s]+@${EMAIL_DOMAIN.replace('.', '\\.')}$`).test(body.emailAddress)
      )
    ) {
      return gbpError(
        reply,
        400,
        `Request contains an invalid argument: email_address must be on ${EMAIL_DOMAIN}.`,
        'email_address',
      );
    }
    if (body.mailerContact !== undefined && typeof body.mailerContact !== 'string')
      return gbpError(reply, 400, "Invalid value at 'mailer_contact': expected a string.", 'mailer_contact');
    const at = now();
    const verification: GbpVerification = {
      name: `locations/${loc.id}/verifications/0T${digits(`verification:${loc.id}:${at}:${Math.random()}`, 13)}`,
      method: body.method as string, // one of METHODS (checked above)
      state: 'PENDING',
      createTime: new Date(at).toISOString(),
    };
    verificationsOf(state, loc).push(verification);
    return { verification };
  });

  app.post('/v1/locations/:l/verifications/:v(^[A-Za-z0-9_-]+)::complete', async (request, reply) => {
    const loc = locationOf(request, reply);
    if (!loc) return reply;
    const body = bodyOf(request, reply, ['pin']);
    if (!body) return reply;
    if (typeof body.pin !== 'string' || !body.pin)
      return gbpError(reply, 400, 'Request contains an invalid argument: pin is required.', 'pin');
    const name = `locations/${loc.id}/verifications/${(request.params as { v: string }).v}`;
    const verification = verificationsOf(state, loc).find((v) => v.name === name);
    if (!verification) return gbpError(reply, 404, 'Requested entity was not found.');
    if (verification.state !== 'PENDING')
      return reply.status(400).send({
        error: {
          code: 400,
          message: 'Precondition check failed: the verification is not PENDING.',
          status: 'FAILED_PRECONDITION',
        },
      });
    if (body.pin !== verificationPin(name))
      return gbpError(reply, 400, 'Request contains an invalid argument: the PIN is incorrect.', 'pin');
    verification.state = 'COMPLETED';
    return { verification };
  });
}
