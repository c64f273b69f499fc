import { Type, type TSchema } from '@sinclair/typebox';
import { invalidFields } from '../../errors.js';
import { platformTool } from '../tools.js';
import { gbpRequest, token } from './api.js';
import type { GoogleBusinessAdapter } from './index.js';

/*
 * gmb-verifications (@zernio/node 0.2.881 getGoogleBusinessVerifications, startGoogleBusinessVerification,
 * fetchGoogleBusinessVerificationOptions, completeGoogleBusinessVerification) on the My Business
 * Verifications API v1 (https://developers.google.com/my-business/reference/verifications/rest):
 * - state: `GET /v1/locations/{l}/VoiceOfMerchantState` and `GET /v1/locations/{l}/verifications`
 *   (pages of 100, oldest first as Google lists them; shown newest first);
 * - options: `POST /v1/locations/{l}:fetchVerificationOptions {languageCode, context?}` (nothing is sent);
 * - start: `POST /v1/locations/{l}:verify {method, ...}`: Google mails a postcard, calls, texts or emails
 *   the business, so this is a write;
 * - complete: `POST /v1/locations/{l}/verifications/{v}:complete {pin}`.
 * Each acts on the account's selected location, or `?locationId`.
 */

const Opt = <T extends TSchema>(s: T) => Type.Optional(s);
const Str = Type.String();
const LocationId = Opt(Type.String({ pattern: '^(locations/)?[0-9]+$', maxLength: 40 }));
const METHODS = ['ADDRESS', 'EMAIL', 'PHONE_CALL', 'SMS', 'AUTO', 'VETTED_PARTNER'] as const;
const Method = Type.Union(METHODS.map((m) => Type.Literal(m)));
const State = Type.Union([Type.Literal('PENDING'), Type.Literal('COMPLETED'), Type.Literal('FAILED')]);
const Verification = Type.Object({ name: Opt(Str), method: Opt(Method), state: Opt(State), createTime: Opt(Str) });
const Where = { success: Type.Boolean(), accountId: Str, locationId: Str };
const Context = Opt(Type.Object({}, { additionalProperties: true, maxProperties: 20 }));
const Language = Type.String({ pattern: '^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$', maxLength: 35 });
/** Google's pages of verifications hold 100; a location has few, so three pages is the whole history. */
const MAX_PAGES = 3;
const tool = platformTool<GoogleBusinessAdapter>();

// any (here, in `all` and in `options`): Google's Verification JSON; each field is checked before it is
// passed on, and the response schema keeps only the documented ones.
const verificationOf = (v: any) => ({
  ...(typeof v?.name === 'string' ? { name: v.name } : {}),
  ...((METHODS as readonly string[]).includes(v?.method) ? { method: v.method } : {}),
  ...(['PENDING', 'COMPLETED', 'FAILED'].includes(v?.state) ? { state: v.state } : {}),
  ...(typeof v?.createTime === 'string' ? { createTime: v.createTime } : {}),
});

/** GET gmb-verifications: Voice of Merchant state and the verification history, newest first. */
const getVerifications = tool({
  method: 'GET',
  path: 'gmb-verifications',
  tags: ['GMB Verifications'],
  summary: 'Get verification state',
  querystring: Type.Object({ locationId: LocationId }),
  response: Type.Object({
    ...Where,
    voiceOfMerchantState: Type.Object({
      hasVoiceOfMerchant: Type.Boolean(),
      hasBusinessAuthority: Type.Boolean(),
      verify: Opt(Type.Object({ hasPendingVerification: Type.Boolean() })),
    }),
    verifications: Type.Array(Verification),
  }),
  async handler({ adapter, account, query, io }) {
    const where = await adapter.resolveLocation(account!, query.locationId, io);
    const base = `${adapter.options.verificationsUrl}/v1/${where.v1}`;
    const state =
      (await gbpRequest(io, { method: 'GET', url: `${base}/VoiceOfMerchantState`, token: token(account!) })).body ?? {};
    const all: any[] = [];
    let pageToken = '';
    for (let page = 0; page < MAX_PAGES; page++) {
      const q = new URLSearchParams({ pageSize: '100', ...(pageToken ? { pageToken } : {}) });
      const res =
        (await gbpRequest(io, { method: 'GET', url: `${base}/verifications?${q}`, token: token(account!) })).body ?? {};
      all.push(...(res.verifications ?? []));
      pageToken = typeof res.nextPageToken === 'string' ? res.nextPageToken : '';
      if (!pageToken) break;
    }
    const verifications = all
      .map(verificationOf)
      .sort((a, b) => String(b.createTime ?? '').localeCompare(String(a.createTime ?? '')));
    return {
      body: {
        success: true,
        accountId: account!.accountId,
        locationId: where.locationId,
        voiceOfMerchantState: {
          hasVoiceOfMerchant: state.hasVoiceOfMerchant === true,
          hasBusinessAuthority: state.hasBusinessAuthority === true,
          ...(state.verify ? { verify: { hasPendingVerification: state.verify.hasPendingVerification === true } } : {}),
        },
        verifications,
      },
    };
  },
});

/** POST gmb-verifications/options: fetchVerificationOptions (reads only: nothing reaches the business). */
const fetchOptions = tool({
  method: 'POST',
  path: 'gmb-verifications/options',
  write: false,
  tags: ['GMB Verifications'],
  summary: 'Fetch verification options',
  querystring: Type.Object({ locationId: LocationId }),
  body: Type.Object({ languageCode: Language, context: Context }),
  response: Type.Object({
    ...Where,
    options: Type.Array(Type.Object({ verificationMethod: Opt(Method), phoneNumber: Opt(Str) })),
  }),
  async handler({ adapter, account, query, body, io }) {
    const where = await adapter.resolveLocation(account!, query.locationId, io);
    const res = await gbpRequest(io, {
      method: 'POST',
      url: `${adapter.options.verificationsUrl}/v1/${where.v1}:fetchVerificationOptions`,
      token: token(account!),
      json: { languageCode: body.languageCode, ...(body.context ? { context: body.context } : {}) },
    });
    const options = ((res.body?.options ?? []) as any[])
      .filter((o) => (METHODS as readonly string[]).includes(o?.verificationMethod))
      .map((o) => ({
        verificationMethod: o.verificationMethod,
        ...(typeof o.phoneNumber === 'string' ? { phoneNumber: o.phoneNumber } : {}),
      }));
    return { body: { success: true, accountId: account!.accountId, locationId: where.locationId, options } };
  },
});

/** POST gmb-verifications: verify. Google sends the PIN by the chosen method; the answer is PENDING. */
const startVerification = tool({
  method: 'POST',
  path: 'gmb-verifications',
  tags: ['GMB Verifications'],
  summary: 'Start a verification',
  querystring: Type.Object({ locationId: LocationId }),
  body: Type.Object({
    method: Method,
    languageCode: Opt(Language),
    phoneNumber: Opt(Type.String({ minLength: 3, maxLength: 40 })),
    emailAddress: Opt(Type.String({ format: 'email', maxLength: 320 })),
    mailerContact: Opt(
      Type.Union([Type.String({ maxLength: 200 }), Type.Object({}, { additionalProperties: true, maxProperties: 20 })]),
    ),
    context: Context,
  }),
  response: Type.Object({ ...Where, verification: Verification }),
  async handler({ adapter, account, query, body, io }) {
    // Google's VerifyLocationRequest: the input of the chosen method is required for it.
    if ((body.method === 'PHONE_CALL' || body.method === 'SMS') && !body.phoneNumber)
      throw invalidFields(`phoneNumber is required for ${body.method}`, {
        phoneNumber: [`is required for ${body.method}`],
      });
    if (body.method === 'EMAIL' && !body.emailAddress)
      throw invalidFields('emailAddress is required for EMAIL', { emailAddress: ['is required for EMAIL'] });
    const where = await adapter.resolveLocation(account!, query.locationId, io);
    // Google's mailerContact is the contact name; the hosted wire also lets it be an object with one.
    const mailer = body.mailerContact as { name?: unknown; contactName?: unknown } | string | undefined;
    const contact = typeof mailer === 'object' ? String(mailer.name ?? mailer.contactName ?? '') : mailer;
    const res = await gbpRequest(io, {
      method: 'POST',
      url: `${adapter.options.verificationsUrl}/v1/${where.v1}:verify`,
      token: token(account!),
      json: {
        method: body.method,
        ...(body.languageCode ? { languageCode: body.languageCode } : {}),
        ...(body.phoneNumber ? { phoneNumber: body.phoneNumber } : {}),
        ...(body.emailAddress ? { emailAddress: body.emailAddress } : {}),
        ...(contact ? { mailerContact: contact } : {}),
        ...(body.context ? { context: body.context } : {}),
      },
    });
    return {
      body: {
        success: true,
        accountId: account!.accountId,
        locationId: where.locationId,
        verification: verificationOf(res.body?.verification),
      },
    };
  },
});

/** POST gmb-verifications/{verificationId}/complete: complete with the PIN Google sent. */
const completeVerification = tool({
  method: 'POST',
  path: 'gmb-verifications/:verificationId/complete',
  tags: ['GMB Verifications'],
  summary: 'Complete a verification',
  querystring: Type.Object({ locationId: LocationId }),
  body: Type.Object({ pin: Type.String({ minLength: 1, maxLength: 20, pattern: '^[A-Za-z0-9]+$' }) }),
  response: Type.Object({ ...Where, verification: Verification }),
  async handler({ adapter, account, query, body, params, io }) {
    const id = params.verificationId ?? '';
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(id))
      throw invalidFields('verificationId is the last segment of a verification name', {
        verificationId: ['must be the last segment of a verification name'],
      });
    const where = await adapter.resolveLocation(account!, query.locationId, io);
    const res = await gbpRequest(io, {
      method: 'POST',
      url: `${adapter.options.verificationsUrl}/v1/${where.v1}/verifications/${id}:complete`,
      token: token(account!),
      json: { pin: body.pin },
    });
    return {
      body: {
        success: true,
        accountId: account!.accountId,
        locationId: where.locationId,
        verification: verificationOf(res.body?.verification),
      },
    };
  },
});

export const VERIFICATION_TOOLS = [getVerifications, fetchOptions, startVerification, completeVerification];
