import { textRuleError } from '../rules/text.js';
import { PlatformError, type EditTextRequest, type EditTextResult, type PlatformIO } from '../types.js';
import { gbpRequest, token, type GoogleBusinessOptions } from './api.js';
import { TEXT } from './rules.js';

/**
 * `PATCH /v4/{name}?updateMask=summary` (https://developers.google.com/my-business/reference/rest/v4/accounts.locations.localPosts/patch):
 * the post's text only; call to action, event or offer fields and media stay, and the name stays the id.
 * No time or edit limit. A post that is gone from Google (deleted in the Business Profile dashboard, or an
 * event or offer past its end date) answers 404, said here in those words.
 */
export async function editLocalPost(
  opts: GoogleBusinessOptions,
  req: EditTextRequest,
  io: PlatformIO,
): Promise<EditTextResult> {
  const tooLong = textRuleError(TEXT, req.content, 'the post text');
  if (tooLong) throw new PlatformError('rejected', tooLong, { platformCode: 'summary' });
  if (!/^accounts\/[^/]+\/locations\/[^/]+\/localPosts\/[^/]+$/.test(req.platformPostId))
    throw new PlatformError('rejected', `${req.platformPostId} is not a Google Business post name`, {
      platformCode: 'post_name',
    });
  let searchUrl: unknown;
  try {
    const res = await gbpRequest(io, {
      method: 'PATCH',
      url: `${opts.apiUrl}/v4/${req.platformPostId}?updateMask=summary`,
      token: token(req.account),
      json: { summary: req.content },
    });
    searchUrl = (res.body as { searchUrl?: unknown } | null)?.searchUrl;
  } catch (error) {
    if (!(error instanceof PlatformError) || error.status !== 404) throw error;
    throw new PlatformError(
      'rejected',
      'the post is no longer on Google (deleted from the Business Profile, or an event or offer past its end date)',
      { status: 404, endpoint: error.endpoint, raw: error.raw, platformCode: error.platformCode, cause: error },
    );
  }
  return {
    platformPostId: req.platformPostId,
    platformPostUrl: typeof searchUrl === 'string' ? searchUrl : req.platformPostUrl,
  };
}
