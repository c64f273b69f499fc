import { graphLogin } from '../graph/login.js';
import type { OAuthProvider } from '../types.js';
import { FACEBOOK_HTTP, type FacebookOptions } from './api.js';

/**
 * Facebook Login for Pages: list the Pages, publish as them, read their posts, and comment (first
 * comment). https://developers.facebook.com/docs/pages-api/overview#permissions
 */
export const FACEBOOK_DEFAULT_SCOPES = [
  'pages_show_list',
  'pages_manage_posts',
  'pages_read_engagement',
  'pages_manage_engagement',
  'business_management',
  // The inbox: Messenger, visitors' comments and ratings, and installing the app on the Page for webhooks.
  'pages_messaging',
  'pages_read_user_content',
  'pages_manage_metadata',
];

/** Facebook Login (graph/login.ts) with Facebook's app and settings. */
export function facebookOAuth(opts: FacebookOptions): OAuthProvider {
  return graphLogin({ ...opts, name: 'Facebook', settings: 'FACEBOOK' }, FACEBOOK_HTTP);
}
