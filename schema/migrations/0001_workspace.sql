CREATE TABLE `snapshot_contents` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`deployment_id` integer NOT NULL,
	`report_id` integer NOT NULL,
	`version_number` integer NOT NULL,
	`name` text NOT NULL,
	`title` text NOT NULL,
	`description` text NOT NULL,
	`spec` text NOT NULL,
	`sql_query` text NOT NULL,
	`meta` text NOT NULL,
	`fill_missing_rows` text,
	`period_comparisons` text NOT NULL,
	`preferences` text NOT NULL,
	FOREIGN KEY (`deployment_id`) REFERENCES `deployments`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `snapshot_contents_report_version_uq` ON `snapshot_contents` (`report_id`,`version_number`);--> statement-breakpoint
CREATE INDEX `snapshot_contents_deployment_idx` ON `snapshot_contents` (`deployment_id`);--> statement-breakpoint
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_report_snapshots` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`dashboard_version_id` integer NOT NULL,
	`content_id` integer,
	`report_id` integer,
	`version_number` integer,
	`name` text,
	`title` text,
	`description` text,
	`spec` text,
	`sql_query` text,
	`meta` text,
	`fill_missing_rows` text,
	`period_comparisons` text,
	`preferences` text,
	FOREIGN KEY (`dashboard_version_id`) REFERENCES `dashboard_versions`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`content_id`) REFERENCES `snapshot_contents`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
INSERT INTO `__new_report_snapshots`("id", "dashboard_version_id", "content_id", "report_id", "version_number", "name", "title", "description", "spec", "sql_query", "meta", "fill_missing_rows", "period_comparisons", "preferences") SELECT "id", "dashboard_version_id", "content_id", "report_id", "version_number", "name", "title", "description", "spec", "sql_query", "meta", "fill_missing_rows", "period_comparisons", "preferences" FROM `report_snapshots`;--> statement-breakpoint
DROP TABLE `report_snapshots`;--> statement-breakpoint
ALTER TABLE `__new_report_snapshots` RENAME TO `report_snapshots`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE INDEX `report_snapshots_version_idx` ON `report_snapshots` (`dashboard_version_id`,`id`);--> statement-breakpoint
CREATE INDEX `report_snapshots_content_idx` ON `report_snapshots` (`content_id`);--> statement-breakpoint
ALTER TABLE `workspace_items` ADD `name_grams` text DEFAULT '' NOT NULL;--> statement-breakpoint
CREATE INDEX `workspace_items_created_by_idx` ON `workspace_items` (`created_by`);--> statement-breakpoint
CREATE INDEX `workspace_items_updated_by_idx` ON `workspace_items` (`updated_by`);--> statement-breakpoint
CREATE INDEX `dashboard_versions_created_by_idx` ON `dashboard_versions` (`created_by`);--> statement-breakpoint
CREATE INDEX `published_dashboards_created_by_idx` ON `published_dashboards` (`created_by`);--> statement-breakpoint
CREATE INDEX `workspace_views_deployment_idx` ON `workspace_views` (`deployment_id`);--> statement-breakpoint
-- custom:workspace
-- E7 search: two FTS5 indexes over workspace_items (external content, no copy of the names):
-- trigram for searches of 3+ characters (substring matching), and the 1–2 character grams of
-- name_grams for shorter ones. Kept in sync by the triggers below (FK cascades fire them too).
UPDATE workspace_items SET name_grams = coalesce((
  WITH RECURSIVE pos(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM pos WHERE i < length(workspace_items.name_key))
  SELECT group_concat('g' || hex(substr(workspace_items.name_key, i, 1)) ||
    CASE WHEN i < length(workspace_items.name_key) THEN ' g' || hex(substr(workspace_items.name_key, i, 2)) ELSE '' END, ' ')
  FROM pos WHERE length(workspace_items.name_key) > 0), '');
CREATE VIRTUAL TABLE workspace_items_trgm USING fts5(name_key, content='workspace_items', content_rowid='id', tokenize='trigram case_sensitive 0');
CREATE VIRTUAL TABLE workspace_items_grams USING fts5(name_grams, content='workspace_items', content_rowid='id', tokenize='unicode61');
INSERT INTO workspace_items_trgm(workspace_items_trgm) VALUES ('rebuild');
INSERT INTO workspace_items_grams(workspace_items_grams) VALUES ('rebuild');
CREATE TRIGGER workspace_items_search_insert AFTER INSERT ON workspace_items BEGIN
  INSERT INTO workspace_items_trgm(rowid, name_key) VALUES (new.id, new.name_key);
  INSERT INTO workspace_items_grams(rowid, name_grams) VALUES (new.id, new.name_grams);
END;
CREATE TRIGGER workspace_items_search_delete AFTER DELETE ON workspace_items BEGIN
  INSERT INTO workspace_items_trgm(workspace_items_trgm, rowid, name_key) VALUES ('delete', old.id, old.name_key);
  INSERT INTO workspace_items_grams(workspace_items_grams, rowid, name_grams) VALUES ('delete', old.id, old.name_grams);
END;
CREATE TRIGGER workspace_items_search_update AFTER UPDATE OF name_key, name_grams ON workspace_items BEGIN
  INSERT INTO workspace_items_trgm(workspace_items_trgm, rowid, name_key) VALUES ('delete', old.id, old.name_key);
  INSERT INTO workspace_items_grams(workspace_items_grams, rowid, name_grams) VALUES ('delete', old.id, old.name_grams);
  INSERT INTO workspace_items_trgm(rowid, name_key) VALUES (new.id, new.name_key);
  INSERT INTO workspace_items_grams(rowid, name_grams) VALUES (new.id, new.name_grams);
END;
-- Snapshots: move the content of existing snapshots into snapshot_contents (one row per report
-- version), link them, and empty the legacy columns.
INSERT INTO snapshot_contents (deployment_id, report_id, version_number, name, title, description, spec,
    sql_query, meta, fill_missing_rows, period_comparisons, preferences)
  SELECT pd.deployment_id, rs.report_id, rs.version_number, rs.name, rs.title, rs.description, rs.spec,
    rs.sql_query, rs.meta, rs.fill_missing_rows, rs.period_comparisons, rs.preferences
  FROM report_snapshots rs
    JOIN dashboard_versions dv ON dv.id = rs.dashboard_version_id
    JOIN published_dashboards pd ON pd.id = dv.published_dashboard_id
  WHERE rs.content_id IS NULL AND rs.report_id IS NOT NULL
  ORDER BY rs.id
  ON CONFLICT (report_id, version_number) DO NOTHING;
UPDATE report_snapshots SET content_id = (SELECT sc.id FROM snapshot_contents sc
    WHERE sc.report_id = report_snapshots.report_id AND sc.version_number = report_snapshots.version_number),
  report_id = NULL, version_number = NULL, name = NULL, title = NULL, description = NULL, spec = NULL,
  sql_query = NULL, meta = NULL, fill_missing_rows = NULL, period_comparisons = NULL, preferences = NULL
  WHERE content_id IS NULL;
-- A content no version links to any more (its versions went with their workbook) is deleted.
CREATE TRIGGER snapshot_contents_release AFTER DELETE ON report_snapshots BEGIN
  DELETE FROM snapshot_contents WHERE id = old.content_id
    AND NOT EXISTS (SELECT 1 FROM report_snapshots WHERE content_id = old.content_id);
END;
