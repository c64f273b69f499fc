import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { CALENDAR_EXCERPT, listCalendar } from '../../../domain/posts/read-posts.js';
import { presentCalendarPost } from '../../../domain/present/posts.js';
import type { App } from '../../app.js';
import { errorResponses } from '../../schemas/common.js';
import { PlatformName, StatusFilter } from './schemas.js';

const Query = Type.Object({
  dateFrom: Type.String({
    maxLength: 64,
    description: 'YYYY-MM-DD or ISO date-time: the period starts here (scheduledFor, else createdAt)',
  }),
  dateTo: Type.String({
    maxLength: 64,
    description: 'YYYY-MM-DD (the whole day) or ISO date-time: the period ends here',
  }),
  profileId: Type.Optional(Type.String({ maxLength: 64 })),
  status: Type.Optional(StatusFilter),
  platform: Type.Optional(PlatformName),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 5000, description: 'default 2000' })),
});

const CalendarPost = Type.Object({
  _id: Type.String(),
  title: Type.Optional(Type.String()),
  excerpt: Type.String({ description: `the first ${CALENDAR_EXCERPT} characters of the post's text` }),
  status: Type.String(),
  scheduledFor: Type.Optional(Type.String()),
  createdAt: Type.String(),
  platforms: Type.Array(Type.String(), { description: "the targets' platforms, each once" }),
});

/**
 * A Herald addition (not in the hosted API): the posts of a period in one answer with only what a
 * calendar draws, where `GET /v1/posts` pages the full posts 100 at a time. The dashboard's calendar uses it.
 */
export default function listCalendarPostsRoute(app: App, ctx: AppContext) {
  app.get(
    '/posts/calendar',
    {
      schema: {
        tags: ['Posts'],
        summary: "The caller's posts of a period, in time order, as a calendar shows them",
        querystring: Query,
        response: {
          200: Type.Object({
            posts: Type.Array(CalendarPost),
            total: Type.Integer({ description: 'posts in the period; more than listed when truncated' }),
            truncated: Type.Boolean(),
          }),
          ...errorResponses(400, 401, 404),
        },
      },
    },
    async (request) => {
      const { rows, total, truncated } = await listCalendar(ctx, request.principal, request.query);
      return { posts: rows.map(presentCalendarPost), total, truncated };
    },
  );
}
