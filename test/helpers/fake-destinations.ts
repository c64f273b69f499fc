import { Type } from '@sinclair/typebox';
import type { DestinationsDeclaration } from '../../src/platforms/destinations.js';
import { TEST_OAUTH_PLATFORM as P } from './oauth-test-platform.js';

/**
 * A Facebook-like pages wire for the test OAuth platform (test/connect/destinations.test.ts): a redirect
 * handoff that also issues a pending data token, a 404 for a page not listed, and an account side that
 * answers `selectedPage`.
 */
export const PAGES: DestinationsDeclaration = {
  kind: 'page',
  connect: {
    list: {
      path: `/connect/${P}/select-page`,
      summary: 'Pages of a pending connection',
      query: Type.Object({
        profileId: Type.String(),
        tempToken: Type.Optional(Type.String()),
        pendingDataToken: Type.Optional(Type.String()),
      }),
      key: 'pages',
      item: Type.Object({ id: Type.String(), name: Type.String(), category: Type.String() }),
      present: (d) => ({ id: d.id, name: d.name, category: d.details.category }),
    },
    select: {
      path: `/connect/${P}/select-page`,
      summary: 'Finish with a page',
      body: Type.Object({
        profileId: Type.String(),
        pageId: Type.String(),
        tempToken: Type.Optional(Type.String()),
        pendingDataToken: Type.Optional(Type.String()),
        userProfile: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
        redirect_url: Type.Optional(Type.String({ format: 'uri' })),
      }),
      choose: (body) => ({ id: String(body.pageId) }),
      notFound: {
        code: 'page_not_found',
        status: 404,
        field: 'pageId',
        message: 'Selected page not found in available pages',
      },
      message: 'Page connected',
      account: { properties: { selectedPageName: Type.String() }, present: (d) => ({ selectedPageName: d?.name }) },
    },
    headless: {
      step: 'select_page',
      pendingData: {
        selectionType: 'pages',
        key: 'pages',
        item: Type.Object({ id: Type.String(), name: Type.String() }),
        present: (d) => ({ id: d.id, name: d.name }),
      },
    },
  },
  account: {
    list: {
      path: `${P}-pages`,
      summary: 'Pages of an account',
      key: 'pages',
      item: Type.Object({ id: Type.String(), name: Type.String() }),
      present: (d) => ({ id: d.id, name: d.name }),
      current: {
        properties: { selectedPageId: Type.Union([Type.String(), Type.Null()]) },
        present: (m) => ({ selectedPageId: m.pageId ?? null }),
      },
    },
    select: {
      path: `${P}-pages`,
      summary: 'Switch page',
      body: Type.Object({ selectedPageId: Type.String() }),
      choose: (body) => ({ id: String(body.selectedPageId) }),
      notFound: {
        code: 'page_not_available',
        status: 400,
        field: 'selectedPageId',
        message: 'Page not in available pages',
      },
      message: 'Page updated',
      respond: { with: 'selected', key: 'selectedPage' },
    },
  },
};
