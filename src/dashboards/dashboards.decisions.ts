/** Decisions about dashboards (E1 and publishing), recorded in the OpenAPI document. */
export const DASHBOARDS_DECISIONS = [
  'E1 bounds: widget positions are integers with x, y ≥ 0 and w, h ≥ 1, each ≤ 10000; at most 200 widgets; widget ids 1–255 characters, unique within the dashboard (a duplicate is reported at its second occurrence); `layout.margin` and `layout.containerPadding` are [horizontal, vertical] integers ≥ 0; `cols` ≥ 1; theme leaves are strings ≤ 255 characters held to a CSS-safe grammar (colours, lengths, font families of letters/digits/spaces/hyphens with matching quotes, border-style keywords); `title` ≤ 500 and `description` ≤ 10000 characters.',
  'E1 without a body, or without `dashboardDraft`, changes nothing and answers the current state. Saving a draft sets the workbook’s `updatedAt`.',
  'Publishing with no draft is a 400. The publicId is 128 random bits in base64url (22 characters). `title`, `description` and `restrictDataDownload` of a republish keep their values when omitted; the first publish defaults `title` to the draft’s title, else the workbook name.',
  'Report snapshots are the reports whose `workbookId` is the published workbook, frozen at publish time (ordered by report id); each records the report’s `versionNumber`.',
  '`GET …/workbooks/{id}/dashboard/versions` is cursor-paginated (newest first, `first` ≤ 100) and empty for a never-published workbook; it answers summaries only (ids, versionNumber, publicId, isCurrent, publishedAt, publishedBy). One version’s config and report snapshots: `GET …/dashboard/versions/{versionNumber}` (an unknown number is a 404).',
  'Report snapshots are stored once per report version: republishing unchanged reports adds no copy of their content; each version still freezes its own config.',
  'Free-form JSON limits (depth/bytes): dashboard config 24/512 KiB, settings 12/32 KiB, widget config 12/32 KiB, widget style 6/8 KiB, report meta 12/32 KiB, columnFormats 8/32 KiB; report spec and sqlQuery ≤ 200,000 bytes each; at most 100 app files.',
  'A write that would take the account past its stored-bytes quota (per plan, operator-adjustable) is a 429 `QUOTA_EXCEEDED` and stores nothing; deletes always go through.',
  'A PublishedDashboard answers `fromSharedWorkspace` and `useBoardDashboards` as false (no shared workspaces or boards exist in this service).',
];
