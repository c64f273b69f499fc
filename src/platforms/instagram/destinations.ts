import { Type } from '@sinclair/typebox';
import type { DestinationsDeclaration } from '../destinations.js';
import type { Destination } from '../types.js';

/*
 * The headless Instagram connection through Facebook Login on the hosted API's wire (@zernio/node 0.2.881
 * listInstagramPages and selectInstagramAccount, /v1/connect/instagram/select-account): the redirect carries
 * the temp token, the user and `step=select_account`; the listing shows each Page that has a linked
 * professional account, with that account; the selection names the Page (`pageId`), and the account linked
 * to it is connected with the Page's token. With Instagram Login the account itself is the one profile and
 * no selection is handed over (the adapter's `selfOnly`), as the hosted API's default flow.
 *
 * NOTE: the hosted listing documents each Page's `access_token`. Herald keeps Page tokens sealed on the
 * server (the temp token stands for them), so the field is declared and never filled.
 */

const str = (d: Destination, key: string) => (typeof d.details[key] === 'string' ? (d.details[key] as string) : null);

export const INSTAGRAM_DESTINATIONS: DestinationsDeclaration = {
  kind: 'profile',
  connect: {
    list: {
      path: '/connect/instagram/select-account',
      summary: 'Facebook Pages with a linked Instagram account, for a pending connection (X-Connect-Token or API key)',
      query: Type.Object({
        profileId: Type.String({ minLength: 1, maxLength: 64 }),
        tempToken: Type.String({ minLength: 1, maxLength: 200 }),
      }),
      key: 'pages',
      item: Type.Object({
        id: Type.String({ description: 'Facebook Page ID' }),
        name: Type.String(),
        access_token: Type.Optional(Type.String()),
        instagram_business_account: Type.Object({
          id: Type.String(),
          username: Type.Union([Type.String(), Type.Null()]),
          profile_picture_url: Type.Union([Type.String(), Type.Null()]),
        }),
      }),
      present: (d) => ({
        id: str(d, 'pageId') ?? '',
        name: str(d, 'pageName') ?? d.name,
        instagram_business_account: { id: d.id, username: d.username ?? null, profile_picture_url: d.picture ?? null },
      }),
    },
    select: {
      path: '/connect/instagram/select-account',
      summary: 'Finish a headless Instagram connection with the Page whose Instagram account to connect',
      body: Type.Object({
        profileId: Type.String({ minLength: 1, maxLength: 64 }),
        pageId: Type.String({ minLength: 1, maxLength: 64 }),
        tempToken: Type.String({ minLength: 1, maxLength: 200 }),
        userProfile: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
        redirect_url: Type.Optional(Type.String({ format: 'uri', maxLength: 2000 })),
      }),
      choose: (body) => ({ id: String(body.pageId) }),
      // The body names the Page; the destination is the professional account linked to it.
      idOf: (d) => str(d, 'pageId'),
      notFound: {
        code: 'page_not_found',
        status: 404,
        field: 'pageId',
        message: 'Selected page not found, or it has no linked Instagram professional account',
      },
      message: 'Instagram account connected successfully',
      account: {
        properties: {
          displayName: Type.String({ description: 'Name of the Facebook Page backing this account' }),
          loginMethod: Type.Literal('facebook_login'),
        },
        present: (d) => ({
          ...(d ? { displayName: str(d, 'pageName') ?? d.name } : {}),
          loginMethod: 'facebook_login',
        }),
      },
    },
    headless: { step: 'select_account' },
  },
};
