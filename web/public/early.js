/*
 * The first page's reads, started while the page is still being parsed, before the app's bundle has even
 * arrived: the sign-in check, the platform list and, on the calendar's month view, the posts of a range
 * that holds the whole month grid. A plain script of its own (not part of the bundle): Chromium sent
 * requests the bundle made only once its first task, the evaluation of the whole bundle, had ended. The
 * app takes the answers (src/early.ts) when it asks for what was read, once; otherwise it asks as before.
 */
(function () {
  var key = null;
  try {
    key = sessionStorage.getItem('herald.apiKey');
  } catch (e) {
    return;
  }
  if (!key) return;
  var headers = { authorization: 'Bearer ' + key };
  var read = function (url) {
    return fetch(url, { headers: headers, credentials: 'omit' }).then(function (res) {
      return res.ok ? res.json() : null;
    }).catch(function () {
      return null;
    });
  };
  var early = (window.__heraldEarly = {
    key: key,
    session: read('/v1/api-keys/current'),
    platforms: read('/v1/platforms'),
    month: null,
  });
  var query = new URLSearchParams(location.search);
  var page = location.pathname.indexOf('/app/') === 0 ? location.pathname.slice(5).split('/')[0] : '';
  var view = query.get('view');
  if ((page && page !== 'calendar') || (view && view !== 'dayGridMonth')) return;
  var at = query.get('date') ? new Date(query.get('date')) : new Date();
  if (isNaN(at.getTime())) return;
  var year, month;
  try {
    var parts = new Intl.DateTimeFormat('en-US', { timeZone: query.get('tz') || undefined, year: 'numeric', month: 'numeric' }).formatToParts(at);
    parts.forEach(function (p) {
      if (p.type === 'year') year = Number(p.value);
      if (p.type === 'month') month = Number(p.value);
    });
  } catch (e) {
    return;
  }
  // The month grid is six weeks from the week of the 1st, in a zone at most 14 hours from UTC: eight days
  // before the 1st to 44 days after holds it in any zone and week start.
  var DAY = 86400000;
  var first = Date.UTC(year, month - 1, 1);
  var from = first - 8 * DAY;
  var to = first + 44 * DAY;
  var url = '/v1/posts/calendar?dateFrom=' + encodeURIComponent(new Date(from).toISOString()) + '&dateTo=' + encodeURIComponent(new Date(to).toISOString()) + '&limit=5000';
  early.month = { from: from, to: to, posts: read(url).then(function (r) { return r && !r.truncated ? r.posts : null; }) };
})();
