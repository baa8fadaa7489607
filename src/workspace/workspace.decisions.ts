/** Decisions about the workspace (folders, workbooks, reports, E2, E3, E5, E6, E7), recorded in the OpenAPI document. */
export const WORKSPACE_DECISIONS = [
  'Workspace, workbook, folder, report and dashboard routes take Bearer only (they answer per user: `isFavorite`, `viewerLastViewedAt`); an Api-Key there is a 401.',
  'Members may read and edit the whole workspace of their account (create, update, delete, move, favourite, save drafts, publish): contract §2 lists none of it as admin-only. Embedding switches (E8) stay admin-only.',
  'Ids are one sequence shared by folders, workbooks and reports, so an id names one item of any type. Another account’s deployment, or an item of another deployment, is a 404.',
  'Every item answer carries `type`, `folderPath` (root first), `user` (the creator’s summary, null once that user is deleted), `userId` (= `createdBy`), `isFavorite` and `viewerLastViewedAt` for the caller. Fields a type does not have are null (e.g. `slug` of a folder).',
  'A `GET` of a folder, workbook or report records the caller’s view time (`viewerLastViewedAt`); lists and writes do not.',
  'Folders nest at most 10 levels (a root-level folder is level 1); creating or moving a folder deeper is a 400.',
  'Folder `position` is an integer ≥ 0; without one a new folder goes after its sibling folders. Positions are stored, not renumbered; E7 does not sort by them.',
  'E5, E3 and report updates change only the fields sent; a body with none of them is a 400. E3 `folderId: null` moves to the root. `slugTakeover` has an effect only with `slug`.',
  'A workbook created without `slug` gets its name made URL-safe plus a random 8-character suffix. The workbook that loses its slug to `slugTakeover` keeps its old slug plus a random suffix.',
  'E6 moves the deleted folder’s workbooks and reports to its parent without changing their `updatedAt`. E2 moves and all edits set `updatedAt`/`updatedBy`; favourites and views do not.',
  'E2 with a `type` that differs from the item’s is a 400 (`details` path `type`); an unknown item or target folder is a 404.',
  'Deleting a workbook deletes its dashboard draft, published dashboard and versions; its reports stay, with `workbookId` null. Deleting a report keeps the snapshots already published.',
  'Reports: `name` is required (1–255 characters); `periodComparisons[].offset.unit` is one of second, minute, hour, day, week, month, quarter, year; `fillMissingRows` needs `member` and `excludedDimensions`; `preferences` needs `columnFormats`. Every update bumps the report’s `versionNumber`, which snapshots record.',
  'E7 sorts `name` case-insensitively. Items the caller never viewed sort as the lowest `viewer_last_viewed_at` (last in DESC, first in ASC), by id among themselves.',
  'E7 `search` (trimmed; empty means none) spans every folder; with `folderId` it searches that folder’s direct children only. A cursor only works with the filters and order it came from (else 400 `INVALID_CURSOR`).',
  'E7 pages are keyset pages: each item is returned exactly once while others are inserted, updated or deleted between pages, except an item whose own sort key changes mid-walk (it may then be seen twice or not at all).',
];
