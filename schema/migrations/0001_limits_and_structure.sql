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
CREATE TABLE `notification_write_guards` (
	`reason` text NOT NULL,
	CONSTRAINT "recipient_limit" CHECK("notification_write_guards"."reason" <> 'recipient_limit')
);
--> statement-breakpoint
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
ALTER TABLE `accounts` ADD `external_user_count` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `accounts` ADD `stored_bytes` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `accounts` ADD `stored_bytes_limit` integer DEFAULT 1073741824 NOT NULL;--> statement-breakpoint
ALTER TABLE `accounts` ADD `session_rate_limit` integer DEFAULT 1200 NOT NULL;--> statement-breakpoint
ALTER TABLE `deployments` ADD `settings` text;--> statement-breakpoint
CREATE INDEX `deployments_created_by_idx` ON `deployments` (`created_by`);--> statement-breakpoint
ALTER TABLE `notifications` ADD `member_switchers` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `notifications` ADD `notification_ai_summary` integer DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX `notifications_account_idx` ON `notifications` (`account_id`,`deployment_id`,`id`);--> statement-breakpoint
CREATE INDEX `notifications_dashboard_fk_idx` ON `notifications` (`dashboard_id`);--> statement-breakpoint
CREATE INDEX `notifications_created_by_idx` ON `notifications` (`created_by`);--> statement-breakpoint
ALTER TABLE `reports` ADD `public_id` text;--> statement-breakpoint
ALTER TABLE `reports` ADD `json_query` text;--> statement-breakpoint
ALTER TABLE `reports` ADD `source` text;--> statement-breakpoint
ALTER TABLE `reports` ADD `external_workbook_id` text;--> statement-breakpoint
ALTER TABLE `reports` ADD `addin` text;--> statement-breakpoint
CREATE UNIQUE INDEX `reports_public_id_uq` ON `reports` (`public_id`);--> statement-breakpoint
CREATE INDEX `reports_external_workbook_idx` ON `reports` (`external_workbook_id`);--> statement-breakpoint
ALTER TABLE `workspace_items` ADD `name_grams` text DEFAULT '' NOT NULL;--> statement-breakpoint
CREATE INDEX `workspace_items_created_by_idx` ON `workspace_items` (`created_by`);--> statement-breakpoint
CREATE INDEX `workspace_items_updated_by_idx` ON `workspace_items` (`updated_by`);--> statement-breakpoint
CREATE INDEX `access_tokens_account_idx` ON `access_tokens` (`account_id`);--> statement-breakpoint
CREATE INDEX `users_account_role_idx` ON `users` (`account_id`,`role`,`id`);--> statement-breakpoint
CREATE INDEX `dashboard_versions_created_by_idx` ON `dashboard_versions` (`created_by`);--> statement-breakpoint
CREATE INDEX `published_dashboards_created_by_idx` ON `published_dashboards` (`created_by`);--> statement-breakpoint
CREATE INDEX `builds_queued_idx` ON `builds` (`created_at`) WHERE status = 'queued';--> statement-breakpoint
CREATE INDEX `builds_building_idx` ON `builds` (`started_at`) WHERE status = 'building';--> statement-breakpoint
CREATE INDEX `embed_session_revocations_account_idx` ON `embed_session_revocations` (`account_id`);--> statement-breakpoint
CREATE INDEX `notification_deliveries_recipient_idx` ON `notification_deliveries` (`recipient_id`);--> statement-breakpoint
CREATE INDEX `notification_recipients_user_idx` ON `notification_recipients` (`user_id`);--> statement-breakpoint
CREATE INDEX `notification_recipients_embed_user_idx` ON `notification_recipients` (`embed_user_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `notification_runs_manual_inflight_uq` ON `notification_runs` (`notification_id`) WHERE "trigger" = 'manual' AND "status" IN ('queued', 'running');--> statement-breakpoint
CREATE INDEX `workspace_views_deployment_idx` ON `workspace_views` (`deployment_id`);--> statement-breakpoint
CREATE TABLE `__new_embed_write_guards` (
	`reason` text NOT NULL,
	CONSTRAINT "quota_exceeded" CHECK("__new_embed_write_guards"."reason" <> 'quota_exceeded'),
	CONSTRAINT "type_conflict" CHECK("__new_embed_write_guards"."reason" <> 'type_conflict'),
	CONSTRAINT "catalogue_full" CHECK("__new_embed_write_guards"."reason" <> 'catalogue_full'),
	CONSTRAINT "stale_read" CHECK("__new_embed_write_guards"."reason" <> 'stale_read')
);
--> statement-breakpoint
INSERT INTO `__new_embed_write_guards`("reason") SELECT "reason" FROM `embed_write_guards`;--> statement-breakpoint
DROP TABLE `embed_write_guards`;--> statement-breakpoint
ALTER TABLE `__new_embed_write_guards` RENAME TO `embed_write_guards`;
--> statement-breakpoint
-- custom:embedding
-- The external-user quota is a counter on accounts, kept by triggers inside the very statement
-- that inserts or deletes an embed user (a mint, a notification recipient, a cascade), so it
-- can never drift from the rows and the quota guard reads one row instead of counting.
UPDATE accounts SET external_user_count = (SELECT count(*) FROM embed_users u WHERE u.account_id = accounts.id);
--> statement-breakpoint
CREATE TRIGGER embed_users_count_insert AFTER INSERT ON embed_users BEGIN
  UPDATE accounts SET external_user_count = external_user_count + 1 WHERE id = NEW.account_id;
END;
--> statement-breakpoint
CREATE TRIGGER embed_users_count_delete AFTER DELETE ON embed_users BEGIN
  UPDATE accounts SET external_user_count = external_user_count - 1 WHERE id = OLD.account_id;
END;

--> statement-breakpoint
-- custom:platform
-- Accounts provisioned before these columns existed get their plan's defaults (PLAN_DEFAULTS in schema/accounts.ts).
UPDATE `accounts` SET
  `stored_bytes_limit` = CASE `plan` WHEN 'free' THEN 52428800 WHEN 'starter' THEN 262144000 WHEN 'premium' THEN 1073741824 ELSE 4294967296 END,
  `session_rate_limit` = CASE `plan` WHEN 'free' THEN 60 WHEN 'starter' THEN 300 WHEN 'premium' THEN 1200 ELSE 6000 END;

--> statement-breakpoint
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
-- Stored bytes per account (issue 10): triggers keep accounts.stored_bytes in the same statement
-- as every write that changes workspace content; a write that would pass the quota aborts its
-- whole batch. Only increases are refused, so deletes always go through.
CREATE TRIGGER accounts_storage_quota BEFORE UPDATE OF stored_bytes ON accounts
  WHEN new.stored_bytes > old.stored_bytes AND new.stored_bytes > new.stored_bytes_limit
BEGIN
  SELECT RAISE(ABORT, 'STORAGE_QUOTA_EXCEEDED');
END;
CREATE TRIGGER workbooks_stored_bytes_insert AFTER INSERT ON workbooks BEGIN
  UPDATE accounts SET stored_bytes = stored_bytes + (coalesce(length(CAST(new.meta AS BLOB)), 0) + coalesce(length(CAST(new.calculated_fields AS BLOB)), 0) + coalesce(length(CAST(new.dashboard_draft AS BLOB)), 0)) WHERE id = (SELECT account_id FROM deployments WHERE id = new.deployment_id);
END;
CREATE TRIGGER workbooks_stored_bytes_update AFTER UPDATE ON workbooks
  WHEN (coalesce(length(CAST(new.meta AS BLOB)), 0) + coalesce(length(CAST(new.calculated_fields AS BLOB)), 0) + coalesce(length(CAST(new.dashboard_draft AS BLOB)), 0)) <> (coalesce(length(CAST(old.meta AS BLOB)), 0) + coalesce(length(CAST(old.calculated_fields AS BLOB)), 0) + coalesce(length(CAST(old.dashboard_draft AS BLOB)), 0))
BEGIN
  UPDATE accounts SET stored_bytes = stored_bytes + (coalesce(length(CAST(new.meta AS BLOB)), 0) + coalesce(length(CAST(new.calculated_fields AS BLOB)), 0) + coalesce(length(CAST(new.dashboard_draft AS BLOB)), 0)) - (coalesce(length(CAST(old.meta AS BLOB)), 0) + coalesce(length(CAST(old.calculated_fields AS BLOB)), 0) + coalesce(length(CAST(old.dashboard_draft AS BLOB)), 0))
    WHERE id = (SELECT account_id FROM deployments WHERE id = new.deployment_id);
END;
CREATE TRIGGER reports_stored_bytes_insert AFTER INSERT ON reports BEGIN
  UPDATE accounts SET stored_bytes = stored_bytes + (coalesce(length(CAST(new.title AS BLOB)), 0) + coalesce(length(CAST(new.description AS BLOB)), 0) + coalesce(length(CAST(new.spec AS BLOB)), 0) + coalesce(length(CAST(new.sql_query AS BLOB)), 0) + coalesce(length(CAST(new.meta AS BLOB)), 0) + coalesce(length(CAST(new.fill_missing_rows AS BLOB)), 0) + coalesce(length(CAST(new.period_comparisons AS BLOB)), 0) + coalesce(length(CAST(new.preferences AS BLOB)), 0))
    WHERE id = (SELECT account_id FROM deployments WHERE id = (SELECT deployment_id FROM workspace_items WHERE id = new.item_id));
END;
CREATE TRIGGER reports_stored_bytes_update AFTER UPDATE ON reports
  WHEN (coalesce(length(CAST(new.title AS BLOB)), 0) + coalesce(length(CAST(new.description AS BLOB)), 0) + coalesce(length(CAST(new.spec AS BLOB)), 0) + coalesce(length(CAST(new.sql_query AS BLOB)), 0) + coalesce(length(CAST(new.meta AS BLOB)), 0) + coalesce(length(CAST(new.fill_missing_rows AS BLOB)), 0) + coalesce(length(CAST(new.period_comparisons AS BLOB)), 0) + coalesce(length(CAST(new.preferences AS BLOB)), 0)) <> (coalesce(length(CAST(old.title AS BLOB)), 0) + coalesce(length(CAST(old.description AS BLOB)), 0) + coalesce(length(CAST(old.spec AS BLOB)), 0) + coalesce(length(CAST(old.sql_query AS BLOB)), 0) + coalesce(length(CAST(old.meta AS BLOB)), 0) + coalesce(length(CAST(old.fill_missing_rows AS BLOB)), 0) + coalesce(length(CAST(old.period_comparisons AS BLOB)), 0) + coalesce(length(CAST(old.preferences AS BLOB)), 0))
BEGIN
  UPDATE accounts SET stored_bytes = stored_bytes + (coalesce(length(CAST(new.title AS BLOB)), 0) + coalesce(length(CAST(new.description AS BLOB)), 0) + coalesce(length(CAST(new.spec AS BLOB)), 0) + coalesce(length(CAST(new.sql_query AS BLOB)), 0) + coalesce(length(CAST(new.meta AS BLOB)), 0) + coalesce(length(CAST(new.fill_missing_rows AS BLOB)), 0) + coalesce(length(CAST(new.period_comparisons AS BLOB)), 0) + coalesce(length(CAST(new.preferences AS BLOB)), 0)) - (coalesce(length(CAST(old.title AS BLOB)), 0) + coalesce(length(CAST(old.description AS BLOB)), 0) + coalesce(length(CAST(old.spec AS BLOB)), 0) + coalesce(length(CAST(old.sql_query AS BLOB)), 0) + coalesce(length(CAST(old.meta AS BLOB)), 0) + coalesce(length(CAST(old.fill_missing_rows AS BLOB)), 0) + coalesce(length(CAST(old.period_comparisons AS BLOB)), 0) + coalesce(length(CAST(old.preferences AS BLOB)), 0))
    WHERE id = (SELECT account_id FROM deployments WHERE id = (SELECT deployment_id FROM workspace_items WHERE id = new.item_id));
END;
CREATE TRIGGER dashboard_versions_stored_bytes_insert AFTER INSERT ON dashboard_versions BEGIN
  UPDATE accounts SET stored_bytes = stored_bytes + coalesce(length(CAST(new.config AS BLOB)), 0)
    WHERE id = (SELECT account_id FROM deployments WHERE id = (SELECT deployment_id FROM published_dashboards WHERE id = new.published_dashboard_id));
END;
CREATE TRIGGER snapshot_contents_stored_bytes_insert AFTER INSERT ON snapshot_contents BEGIN
  UPDATE accounts SET stored_bytes = stored_bytes + (coalesce(length(CAST(new.title AS BLOB)), 0) + coalesce(length(CAST(new.description AS BLOB)), 0) + coalesce(length(CAST(new.spec AS BLOB)), 0) + coalesce(length(CAST(new.sql_query AS BLOB)), 0) + coalesce(length(CAST(new.meta AS BLOB)), 0) + coalesce(length(CAST(new.fill_missing_rows AS BLOB)), 0) + coalesce(length(CAST(new.period_comparisons AS BLOB)), 0) + coalesce(length(CAST(new.preferences AS BLOB)), 0) + coalesce(length(CAST(new.name AS BLOB)), 0)) WHERE id = (SELECT account_id FROM deployments WHERE id = new.deployment_id);
END;
CREATE TRIGGER snapshot_contents_stored_bytes_delete AFTER DELETE ON snapshot_contents BEGIN
  UPDATE accounts SET stored_bytes = max(0, stored_bytes - (coalesce(length(CAST(old.title AS BLOB)), 0) + coalesce(length(CAST(old.description AS BLOB)), 0) + coalesce(length(CAST(old.spec AS BLOB)), 0) + coalesce(length(CAST(old.sql_query AS BLOB)), 0) + coalesce(length(CAST(old.meta AS BLOB)), 0) + coalesce(length(CAST(old.fill_missing_rows AS BLOB)), 0) + coalesce(length(CAST(old.period_comparisons AS BLOB)), 0) + coalesce(length(CAST(old.preferences AS BLOB)), 0) + coalesce(length(CAST(old.name AS BLOB)), 0))) WHERE id = (SELECT account_id FROM deployments WHERE id = old.deployment_id);
END;
-- A deleted item's detail and published versions go by cascade, after their parents are gone:
-- their bytes are released here, before the item row goes.
CREATE TRIGGER workspace_items_stored_bytes_delete BEFORE DELETE ON workspace_items BEGIN
  UPDATE accounts SET stored_bytes = max(0, stored_bytes
      - coalesce((SELECT coalesce(length(CAST(w.meta AS BLOB)), 0) + coalesce(length(CAST(w.calculated_fields AS BLOB)), 0) + coalesce(length(CAST(w.dashboard_draft AS BLOB)), 0) FROM workbooks w WHERE w.item_id = old.id), 0)
      - coalesce((SELECT coalesce(length(CAST(r.title AS BLOB)), 0) + coalesce(length(CAST(r.description AS BLOB)), 0) + coalesce(length(CAST(r.spec AS BLOB)), 0) + coalesce(length(CAST(r.sql_query AS BLOB)), 0) + coalesce(length(CAST(r.meta AS BLOB)), 0) + coalesce(length(CAST(r.fill_missing_rows AS BLOB)), 0) + coalesce(length(CAST(r.period_comparisons AS BLOB)), 0) + coalesce(length(CAST(r.preferences AS BLOB)), 0) FROM reports r WHERE r.item_id = old.id), 0)
      - coalesce((SELECT sum(coalesce(length(CAST(dv.config AS BLOB)), 0)) FROM published_dashboards pd
          JOIN dashboard_versions dv ON dv.published_dashboard_id = pd.id WHERE pd.workbook_id = old.id), 0))
    WHERE id = (SELECT account_id FROM deployments WHERE id = old.deployment_id);
END;
-- What existing accounts already store.
UPDATE accounts SET stored_bytes =
  coalesce((SELECT sum(coalesce(length(CAST(w.meta AS BLOB)), 0) + coalesce(length(CAST(w.calculated_fields AS BLOB)), 0) + coalesce(length(CAST(w.dashboard_draft AS BLOB)), 0)) FROM workbooks w JOIN deployments d ON d.id = w.deployment_id
    WHERE d.account_id = accounts.id), 0)
  + coalesce((SELECT sum(coalesce(length(CAST(r.title AS BLOB)), 0) + coalesce(length(CAST(r.description AS BLOB)), 0) + coalesce(length(CAST(r.spec AS BLOB)), 0) + coalesce(length(CAST(r.sql_query AS BLOB)), 0) + coalesce(length(CAST(r.meta AS BLOB)), 0) + coalesce(length(CAST(r.fill_missing_rows AS BLOB)), 0) + coalesce(length(CAST(r.period_comparisons AS BLOB)), 0) + coalesce(length(CAST(r.preferences AS BLOB)), 0)) FROM reports r JOIN workspace_items i ON i.id = r.item_id
    JOIN deployments d ON d.id = i.deployment_id WHERE d.account_id = accounts.id), 0)
  + coalesce((SELECT sum(coalesce(length(CAST(dv.config AS BLOB)), 0)) FROM dashboard_versions dv
    JOIN published_dashboards pd ON pd.id = dv.published_dashboard_id JOIN deployments d ON d.id = pd.deployment_id
    WHERE d.account_id = accounts.id), 0)
  + coalesce((SELECT sum(coalesce(length(CAST(sc.title AS BLOB)), 0) + coalesce(length(CAST(sc.description AS BLOB)), 0) + coalesce(length(CAST(sc.spec AS BLOB)), 0) + coalesce(length(CAST(sc.sql_query AS BLOB)), 0) + coalesce(length(CAST(sc.meta AS BLOB)), 0) + coalesce(length(CAST(sc.fill_missing_rows AS BLOB)), 0) + coalesce(length(CAST(sc.period_comparisons AS BLOB)), 0) + coalesce(length(CAST(sc.preferences AS BLOB)), 0) + coalesce(length(CAST(sc.name AS BLOB)), 0)) FROM snapshot_contents sc JOIN deployments d ON d.id = sc.deployment_id
    WHERE d.account_id = accounts.id), 0);

--> statement-breakpoint
-- custom:p2-deploy
-- Deleting a deployment releases its stored bytes (issue 12). Its rows go by cascade after the
-- deployment row, when the per-table triggers can no longer find the account: this trigger runs
-- first, while the deployment is still there, and subtracts everything the deployment stores
-- (the backfill formula of 0001 restricted to one deployment).
CREATE TRIGGER deployments_stored_bytes_delete BEFORE DELETE ON deployments BEGIN
  UPDATE accounts SET stored_bytes = max(0, stored_bytes
      - coalesce((SELECT sum(coalesce(length(CAST(w.meta AS BLOB)), 0) + coalesce(length(CAST(w.calculated_fields AS BLOB)), 0) + coalesce(length(CAST(w.dashboard_draft AS BLOB)), 0)) FROM workbooks w WHERE w.deployment_id = old.id), 0)
      - coalesce((SELECT sum(coalesce(length(CAST(r.title AS BLOB)), 0) + coalesce(length(CAST(r.description AS BLOB)), 0) + coalesce(length(CAST(r.spec AS BLOB)), 0) + coalesce(length(CAST(r.sql_query AS BLOB)), 0) + coalesce(length(CAST(r.meta AS BLOB)), 0) + coalesce(length(CAST(r.fill_missing_rows AS BLOB)), 0) + coalesce(length(CAST(r.period_comparisons AS BLOB)), 0) + coalesce(length(CAST(r.preferences AS BLOB)), 0)) FROM reports r JOIN workspace_items i ON i.id = r.item_id WHERE i.deployment_id = old.id), 0)
      - coalesce((SELECT sum(coalesce(length(CAST(dv.config AS BLOB)), 0)) FROM dashboard_versions dv JOIN published_dashboards pd ON pd.id = dv.published_dashboard_id WHERE pd.deployment_id = old.id), 0)
      - coalesce((SELECT sum(coalesce(length(CAST(sc.title AS BLOB)), 0) + coalesce(length(CAST(sc.description AS BLOB)), 0) + coalesce(length(CAST(sc.spec AS BLOB)), 0) + coalesce(length(CAST(sc.sql_query AS BLOB)), 0) + coalesce(length(CAST(sc.meta AS BLOB)), 0) + coalesce(length(CAST(sc.fill_missing_rows AS BLOB)), 0) + coalesce(length(CAST(sc.period_comparisons AS BLOB)), 0) + coalesce(length(CAST(sc.preferences AS BLOB)), 0) + coalesce(length(CAST(sc.name AS BLOB)), 0)) FROM snapshot_contents sc WHERE sc.deployment_id = old.id), 0))
    WHERE id = old.account_id;
END;

--> statement-breakpoint
-- custom:p2-workspace
-- Reports created before Cube's publicId existed get one: 12 random hex digits (within [0-9A-Za-z]).
UPDATE `reports` SET `public_id` = upper(hex(randomblob(6))) WHERE `public_id` IS NULL;
-- Cube's report columns count towards the account's stored bytes like the others (issue 10);
-- separate triggers, so the ones of the storage quota stay as they are.
CREATE TRIGGER reports_cube_stored_bytes_insert AFTER INSERT ON reports
  WHEN new.json_query IS NOT NULL OR new.addin IS NOT NULL
BEGIN
  UPDATE accounts SET stored_bytes = stored_bytes + coalesce(length(CAST(new.json_query AS BLOB)), 0) + coalesce(length(CAST(new.addin AS BLOB)), 0)
    WHERE id = (SELECT account_id FROM deployments WHERE id = (SELECT deployment_id FROM workspace_items WHERE id = new.item_id));
END;
CREATE TRIGGER reports_cube_stored_bytes_update AFTER UPDATE OF json_query, addin ON reports
  WHEN coalesce(length(CAST(new.json_query AS BLOB)), 0) + coalesce(length(CAST(new.addin AS BLOB)), 0) <> coalesce(length(CAST(old.json_query AS BLOB)), 0) + coalesce(length(CAST(old.addin AS BLOB)), 0)
BEGIN
  UPDATE accounts SET stored_bytes = stored_bytes + coalesce(length(CAST(new.json_query AS BLOB)), 0) + coalesce(length(CAST(new.addin AS BLOB)), 0) - coalesce(length(CAST(old.json_query AS BLOB)), 0) - coalesce(length(CAST(old.addin AS BLOB)), 0)
    WHERE id = (SELECT account_id FROM deployments WHERE id = (SELECT deployment_id FROM workspace_items WHERE id = new.item_id));
END;
CREATE TRIGGER workspace_items_cube_stored_bytes_delete BEFORE DELETE ON workspace_items WHEN old.type = 'REPORT'
BEGIN
  UPDATE accounts SET stored_bytes = max(0, stored_bytes - coalesce((SELECT coalesce(length(CAST(r.json_query AS BLOB)), 0) + coalesce(length(CAST(r.addin AS BLOB)), 0) FROM reports r WHERE r.item_id = old.id), 0))
    WHERE id = (SELECT account_id FROM deployments WHERE id = old.deployment_id);
END;
