import { Type, type TSchema } from '@sinclair/typebox';
import type { DestinationNotFound, DestinationsDeclaration } from '../destinations.js';
import type { Destination } from '../types.js';

/*
 * Facebook's Page selection on the hosted API's wire (api-reference.md sections 6 and 7;
 * late-openapi-1.0.1.yaml /v1/connect/facebook/select-page and /v1/accounts/{accountId}/facebook-page).
 * The headless redirect carries the temp token, the user and `step=select_page`; X-Connect-Token
 * authenticates the selection calls.
 *
 * NOTE: the hosted listing documents each page's `access_token`. Herald keeps Page tokens sealed on the
 * server (the temp token stands for them), so the field is declared and never filled.
 */

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const str = (d: Destination, key: string) => (typeof d.details[key] === 'string' ? (d.details[key] as string) : null);
const int = (d: Destination, key: string) => (typeof d.details[key] === 'number' ? (d.details[key] as number) : null);

const connectNotFound: DestinationNotFound = {
  code: 'page_not_found',
  status: 404,
  field: 'pageId',
  message: 'Selected page not found in available pages',
};
const accountNotFound: DestinationNotFound = {
  code: 'page_not_available',
  status: 400,
  field: 'selectedPageId',
  message: 'Page not in available pages',
};

export const FACEBOOK_DESTINATIONS: DestinationsDeclaration = {
  kind: 'page',
  connect: {
    list: {
      path: '/connect/facebook/select-page',
      summary: 'Facebook Pages of a pending connection (X-Connect-Token or API key)',
      query: Type.Object({
        profileId: Type.String({ minLength: 1, maxLength: 64 }),
        tempToken: Type.String({ minLength: 1, maxLength: 200 }),
      }),
      key: 'pages',
      item: Type.Object({
        id: Type.String(),
        name: Type.String(),
        username: Nullable(Type.String()),
        access_token: Type.Optional(Type.String()),
        category: Nullable(Type.String()),
        tasks: Type.Array(Type.String()),
      }),
      present: (d) => ({
        id: d.id,
        name: d.name,
        username: d.username ?? null,
        category: str(d, 'category'),
        tasks: Array.isArray(d.details.tasks) ? d.details.tasks : [],
      }),
    },
    select: {
      path: '/connect/facebook/select-page',
      summary: 'Finish a headless Facebook connection with the Page chosen',
      body: Type.Object({
        profileId: Type.String({ minLength: 1, maxLength: 64 }),
        pageId: Type.String({ minLength: 1, maxLength: 64 }),
        tempToken: Type.String({ minLength: 1, maxLength: 200 }),
        userProfile: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
        redirect_url: Type.Optional(Type.String({ format: 'uri', maxLength: 2000 })),
      }),
      choose: (body) => ({ id: String(body.pageId) }),
      notFound: connectNotFound,
      message: 'Facebook page connected successfully',
      account: {
        properties: { selectedPageName: Nullable(Type.String()) },
        present: (d) => ({ selectedPageName: d?.name ?? null }),
      },
    },
    headless: { step: 'select_page' },
  },
  account: {
    list: {
      path: 'facebook-page',
      summary: 'Facebook Pages the connected user manages, and the one selected',
      key: 'pages',
      item: Type.Object({
        id: Type.String(),
        name: Type.String(),
        username: Nullable(Type.String()),
        category: Nullable(Type.String()),
        fan_count: Nullable(Type.Integer()),
      }),
      present: (d) => ({
        id: d.id,
        name: d.name,
        username: d.username ?? null,
        category: str(d, 'category'),
        fan_count: int(d, 'fan_count'),
      }),
      // Herald lists from Facebook on every call: nothing is served from a cache.
      current: {
        properties: { selectedPageId: Nullable(Type.String()), cached: Type.Boolean() },
        present: (m) => ({ selectedPageId: typeof m.pageId === 'string' ? m.pageId : null, cached: false }),
      },
    },
    select: {
      path: 'facebook-page',
      summary: 'Switch the Facebook Page the account posts to',
      body: Type.Object({ selectedPageId: Type.String({ minLength: 1, maxLength: 64 }) }),
      choose: (body) => ({ id: String(body.selectedPageId) }),
      notFound: accountNotFound,
      message: 'Facebook page updated successfully',
      respond: { with: 'selected', key: 'selectedPage' },
    },
  },
};
