/** Decisions about dashboards (E1 and publishing), recorded in the OpenAPI document. */
export const DASHBOARDS_DECISIONS = [
  'E1 bounds: widget positions are integers with x, y ≥ 0 and w, h ≥ 1, each ≤ 10000; at most 500 widgets; widget ids 1–255 characters, unique within the dashboard (a duplicate is reported at its second occurrence); `layout.margin` and `layout.containerPadding` are [horizontal, vertical] integers ≥ 0; `cols` ≥ 1; theme leaves are strings ≤ 255 characters; `title` ≤ 500 and `description` ≤ 10000 characters.',
  'E1 without a body, or without `dashboardDraft`, changes nothing and answers the current state. Saving a draft sets the workbook’s `updatedAt`.',
  'Publishing with no draft is a 400. The publicId is 128 random bits in base64url (22 characters). `title`, `description` and `restrictDataDownload` of a republish keep their values when omitted; the first publish defaults `title` to the draft’s title, else the workbook name.',
  'Report snapshots are the reports whose `workbookId` is the published workbook, frozen at publish time (ordered by report id); each records the report’s `versionNumber`.',
  '`GET …/workbooks/{id}/dashboard/versions` is cursor-paginated (newest first) and empty for a never-published workbook; each version says whether it is the current one.',
  'A PublishedDashboard answers `fromSharedWorkspace` and `useBoardDashboards` as false (no shared workspaces or boards exist in this service).',
];
