import { api, connectTelegramChat, freePort, startHerald, type BenchResult } from './lib.js';

/**
 * Issue 20: POST /v1/posts/bulk-upload with a 5,000-row CSV (SANDBOX=1; PostgreSQL with
 * BENCH_DATABASE_URL), through a real server and a real multipart request:
 * - the dry run must name every bad row and store nothing (GET /v1/posts stays empty);
 * - the real run must create every good row;
 * each within 10 s. One row in 20 is bad, in five ways (time, profile, flag, text over Telegram's
 * 4,096, cell count). The file is what a spreadsheet exports: a BOM, `;` separators, quoted cells with
 * separators, quotes and line breaks.
 */
const ROWS = 5000;
const GOAL_MS = 10_000;

function buildCsv(profileId: string, accountIds: string[]): { csv: string; bad: number[] } {
  const lines = ['\ufeffpost_content;platforms;profiles;accounts;schedule_time;tz;publish_now'];
  const bad: number[] = [];
  for (let row = 1; row <= ROWS; row++) {
    const text = `"Post #${row}; with ""quotes""\nand a second line"`;
    const time = `2030-0${1 + (row % 9)}-${String(1 + (row % 28)).padStart(2, '0')} ${String(row % 24).padStart(2, '0')}:30`;
    const byProfile = row % 2 === 0;
    const cells = [
      text,
      byProfile ? 'telegram' : '',
      byProfile ? profileId : '',
      byProfile ? '' : accountIds[row % accountIds.length],
      time,
      'Europe/Paris',
      '',
    ];
    if (row % 20 === 0) {
      bad.push(row);
      const kind = (row / 20) % 5;
      if (kind === 0) cells[4] = 'next tuesday';
      else if (kind === 1) [cells[1], cells[2], cells[3]] = ['telegram', 'no-such-profile', ''];
      else if (kind === 2) cells[6] = 'maybe';
      else if (kind === 3) cells[0] = 'x'.repeat(4097);
      else cells.pop();
    }
    lines.push(cells.join(';'));
  }
  return { csv: lines.join('\r\n') + '\r\n', bad };
}

async function upload(url: string, apiKey: string, csv: string, dryRun: boolean) {
  const form = new FormData();
  form.append('file', new Blob([csv], { type: 'text/csv' }), 'posts.csv');
  const started = performance.now();
  const res = await fetch(`${url}/v1/posts/bulk-upload${dryRun ? '?dryRun=true' : ''}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}` },
    body: form,
  });
  const body = (await res.json()) as {
    totalRows: number;
    created: number;
    failed: number;
    errors: { row: number }[];
    posts: unknown[];
  };
  return { ms: performance.now() - started, status: res.status, body };
}

export default async function bulkUploadBench(): Promise<BenchResult[]> {
  const databaseUrl = process.env.BENCH_DATABASE_URL;
  const sandboxPort = await freePort();
  const herald = await startHerald({
    SANDBOX: '1',
    SANDBOX_PORT: String(sandboxPort),
    ...(databaseUrl ? { DATABASE_URL: databaseUrl, DATABASE_SCHEMA: `bench_bulk_${process.pid}` } : {}),
  });
  try {
    const profileId = (await api(herald, 'POST', '/v1/profiles', { name: 'Bulk' })).profile._id;
    const accountIds: string[] = [];
    for (let i = 0; i < 3; i++)
      accountIds.push((await connectTelegramChat(herald, sandboxPort, profileId, `-100${1000000000 + i}`)).account._id);
    const { csv, bad } = buildCsv(profileId, accountIds);

    const dry = await upload(herald.url, herald.apiKey, csv, true);
    const reported = dry.body.errors.map((e) => e.row);
    if (dry.status !== 207 || dry.body.totalRows !== ROWS || JSON.stringify(reported) !== JSON.stringify(bad)) {
      throw new Error(
        `dry run: ${dry.status}, ${dry.body.totalRows} rows, bad rows reported ${reported.length} of ${bad.length}`,
      );
    }
    const afterDry = (await api(herald, 'GET', '/v1/posts?limit=1')).pagination.total;
    if (afterDry !== 0) throw new Error(`the dry run stored ${afterDry} posts`);

    const real = await upload(herald.url, herald.apiKey, csv, false);
    const stored = (await api(herald, 'GET', '/v1/posts?limit=1')).pagination.total;
    if (real.status !== 207 || real.body.created !== ROWS - bad.length || stored !== ROWS - bad.length) {
      throw new Error(
        `real run: ${real.status}, created ${real.body.created}, stored ${stored}, expected ${ROWS - bad.length}`,
      );
    }
    const db = databaseUrl ? 'PostgreSQL' : 'SQLite';
    return [
      {
        name: `CSV of ${ROWS} rows, ${bad.length} bad (${(csv.length / 1e6).toFixed(2)} MB)`,
        value: ROWS,
        unit: 'rows',
      },
      {
        name: `dry run: every bad row named, nothing stored (${db})`,
        value: Number((dry.ms / 1000).toFixed(2)),
        unit: 's',
        goal: '< 10 s',
        pass: dry.ms < GOAL_MS,
      },
      {
        name: `real run: ${real.body.created} posts created (${db})`,
        value: Number((real.ms / 1000).toFixed(2)),
        unit: 's',
        goal: '< 10 s',
        pass: real.ms < GOAL_MS,
      },
    ];
  } finally {
    await herald.stop();
  }
}
