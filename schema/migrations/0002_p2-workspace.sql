ALTER TABLE `reports` ADD `public_id` text;--> statement-breakpoint
ALTER TABLE `reports` ADD `json_query` text;--> statement-breakpoint
ALTER TABLE `reports` ADD `source` text;--> statement-breakpoint
ALTER TABLE `reports` ADD `external_workbook_id` text;--> statement-breakpoint
ALTER TABLE `reports` ADD `addin` text;--> statement-breakpoint
CREATE UNIQUE INDEX `reports_public_id_uq` ON `reports` (`public_id`);--> statement-breakpoint
CREATE INDEX `reports_external_workbook_idx` ON `reports` (`external_workbook_id`);--> statement-breakpoint
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
