// The render endpoint honours the account's app config: a download restriction refuses the
// file, the time zone policy is the zone of the queries and of the data's time, the app theme
// (applied globally) is the default of the dashboard's own.
import { beforeAll, describe, expect, it } from 'vitest';
import { expectError, type SeededAccount, seedAccount } from '../helpers/harness';
import { type Auth, api } from '../helpers/http';
import { pdfText } from '../helpers/pdf-text';
import { fetchBytes, type SeededDashboard, seedBusinessReview } from '../render/seed';
import { MONTHS_TOKYO, MONTHS_UTC, type MonthsBoard, monthsBoard, tableText } from './fixtures';

let acme: SeededAccount;
let other: SeededAccount;
let months: MonthsBoard;

beforeAll(async () => {
  acme = await seedAccount();
  other = await seedAccount();
  months = await monthsBoard(acme);
});

const renderPath = (deploymentId: number, workbookId: number, query = '') =>
  `/api/v1/deployments/${deploymentId}/workbooks/${workbookId}/dashboard/render${query}`;

async function patchConfig(account: SeededAccount, body: Record<string, unknown>) {
  const res = await api('PATCH', '/api/v1/app-config', { auth: account.admin, body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

/** The colour of a PNG's top-left pixel (the page's background), as #rrggbb. */
async function cornerColor(png: Uint8Array): Promise<string> {
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  const idat: Uint8Array[] = [];
  let colorType = -1;
  for (let at = 8; at < png.length; ) {
    const length = view.getUint32(at);
    const type = new TextDecoder().decode(png.subarray(at + 4, at + 8));
    if (type === 'IHDR') colorType = png[at + 8 + 9] as number;
    if (type === 'IDAT') idat.push(png.subarray(at + 8, at + 8 + length));
    at += 12 + length;
  }
  expect([2, 6]).toContain(colorType);
  const stream = new Blob(idat).stream().pipeThrough(new DecompressionStream('deflate'));
  const reader = stream.getReader();
  const { value } = await reader.read();
  await reader.cancel();
  // The first pixel of the first row reads the same under every PNG filter: byte 0 is the filter.
  expect(value?.length).toBeGreaterThan(3);
  const rgb = [1, 2, 3].map((i) => (value?.[i] ?? 0).toString(16).padStart(2, '0'));
  return `#${rgb.join('')}`;
}

describe('restrictDataDownload', () => {
  it('refuses every render of the account’s dashboards with 403 DOWNLOAD_RESTRICTED, to every caller', async () => {
    const ok = await fetchBytes(renderPath(months.deploymentId, months.workbookId), acme.member);
    expect(ok.status).toBe(200);
    await patchConfig(acme, { restrictDataDownload: true });
    const auths: Auth[] = [acme.admin, acme.member, acme.key, acme.scopedKey];
    for (const auth of auths) {
      for (const query of ['', '?format=pdf', '?version=draft&format=png']) {
        const res = await fetchBytes(renderPath(months.deploymentId, months.workbookId, query), auth);
        expectError(res, 403, 'DOWNLOAD_RESTRICTED');
        expect(res.body.error).toContain('restrictDataDownload');
      }
    }
    // Read with the render's one statement: no query more than the credential's and the source's.
    const refused = await fetchBytes(renderPath(months.deploymentId, months.workbookId), acme.admin);
    expect(refused.headers.get('x-d1-round-trips')).toBe('2');
    // Any workbook of the account is refused; another account's deployment is still a 404.
    expectError(
      await fetchBytes(renderPath(months.deploymentId, 999_999), acme.admin),
      403,
      'DOWNLOAD_RESTRICTED',
    );
    expectError(
      await fetchBytes(renderPath(other.deployments[0], months.workbookId), acme.admin),
      404,
      'NOT_FOUND',
    );
  });

  it('leaves other accounts alone, and lifting it serves the files again', async () => {
    const theirs = await seedBusinessReview(other);
    expect((await fetchBytes(renderPath(theirs.deploymentId, theirs.workbookId), other.admin)).status).toBe(
      200,
    );
    await patchConfig(acme, { restrictDataDownload: false });
    const res = await fetchBytes(
      renderPath(months.deploymentId, months.workbookId, '?format=pdf'),
      acme.admin,
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
  });
});

describe('the time zone policy', () => {
  it('runs the queries that name no zone in the account’s zone, and writes the data’s time in it', async () => {
    const path = renderPath(months.deploymentId, months.workbookId, '?format=pdf');
    const before = await pdfText((await fetchBytes(path, acme.admin)).bytes);
    expect(before).toMatch(/\nData as of \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC\n/);
    expect(tableText(before, 'By month', 'By month in UTC')).toContain(MONTHS_UTC);

    // Off, or on without a zone, changes nothing.
    await patchConfig(acme, { timezoneSettings: { enabled: false, timezone: 'Asia/Tokyo' } });
    const off = await pdfText((await fetchBytes(path, acme.admin)).bytes);
    expect(tableText(off, 'By month', 'By month in UTC')).toContain(MONTHS_UTC);
    expect(off).toMatch(/ UTC\n/);

    await patchConfig(acme, { timezoneSettings: { enabled: true } });
    const text = await pdfText((await fetchBytes(path, acme.admin)).bytes);
    expect(text).toMatch(/\nData as of \d{4}-\d{2}-\d{2} \d{2}:\d{2} Asia\/Tokyo\n/);
    expect(tableText(text, 'By month', 'By month in UTC')).toContain(MONTHS_TOKYO);
    // A query that names its own zone keeps it.
    expect(tableText(text, 'By month in UTC', null)).toContain(MONTHS_UTC);
    // The draft renders the same way.
    const draft = await pdfText(
      (
        await fetchBytes(
          renderPath(months.deploymentId, months.workbookId, '?format=pdf&version=draft'),
          acme.admin,
        )
      ).bytes,
    );
    expect(tableText(draft, 'By month', 'By month in UTC')).toContain(MONTHS_TOKYO);
    await patchConfig(acme, { timezoneSettings: null });
  });
});

describe('the app theme', () => {
  let themed: SeededDashboard;
  let ownBackground: SeededDashboard;
  const png = async (board: SeededDashboard, account = acme) => {
    const res = await fetchBytes(
      renderPath(board.deploymentId, board.workbookId, '?width=320'),
      account.admin,
    );
    expect(res.status).toBe(200);
    return res.bytes;
  };

  beforeAll(async () => {
    // A dashboard whose theme sets no background, and the sample, whose theme sets one.
    themed = await seedBusinessReview(acme, {
      deploymentId: acme.deployments[1],
      configPatch: { theme: { primaryColor: '#4338ca' } },
    });
    ownBackground = await seedBusinessReview(acme, { deploymentId: acme.deployments[1] });
  });

  it('is the default of rendered dashboards only when applied globally; the dashboard’s own theme wins', async () => {
    expect(await cornerColor(await png(themed))).toBe('#f4f5f7');
    expect(await cornerColor(await png(ownBackground))).toBe('#f3f4f8');

    await patchConfig(acme, { appTheme: { light: { backgroundColor: '#123456' } } });
    expect(await cornerColor(await png(themed))).toBe('#f4f5f7');

    await patchConfig(acme, { applyThemeGlobally: true });
    expect(await cornerColor(await png(themed))).toBe('#123456');
    expect(await cornerColor(await png(ownBackground))).toBe('#f3f4f8');

    // Another account's renders keep their own look.
    const theirs = await seedBusinessReview(other, { configPatch: { theme: { primaryColor: '#4338ca' } } });
    expect(await cornerColor(await png(theirs, other))).toBe('#f4f5f7');

    await patchConfig(acme, { appTheme: null });
    expect(await cornerColor(await png(themed))).toBe('#f4f5f7');
  });
});
