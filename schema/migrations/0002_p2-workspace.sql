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
