ALTER TABLE `accounts` ADD `stored_bytes_limit` integer DEFAULT 1073741824 NOT NULL;--> statement-breakpoint
ALTER TABLE `accounts` ADD `session_rate_limit` integer DEFAULT 1200 NOT NULL;--> statement-breakpoint
CREATE INDEX `access_tokens_account_idx` ON `access_tokens` (`account_id`);--> statement-breakpoint
CREATE INDEX `users_account_role_idx` ON `users` (`account_id`,`role`,`id`);--> statement-breakpoint
CREATE INDEX `builds_queued_idx` ON `builds` (`created_at`) WHERE status = 'queued';--> statement-breakpoint
CREATE INDEX `builds_building_idx` ON `builds` (`started_at`) WHERE status = 'building';--> statement-breakpoint
CREATE INDEX `deployments_created_by_idx` ON `deployments` (`created_by`);--> statement-breakpoint
-- custom:platform
-- Accounts provisioned before these columns existed get their plan's defaults (PLAN_DEFAULTS in schema/accounts.ts).
UPDATE `accounts` SET
  `stored_bytes_limit` = CASE `plan` WHEN 'free' THEN 52428800 WHEN 'starter' THEN 262144000 WHEN 'premium' THEN 1073741824 ELSE 4294967296 END,
  `session_rate_limit` = CASE `plan` WHEN 'free' THEN 60 WHEN 'starter' THEN 300 WHEN 'premium' THEN 1200 ELSE 6000 END;
