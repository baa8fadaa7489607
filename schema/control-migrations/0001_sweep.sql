CREATE TABLE `pending_accounts` (
	`key_hash` text PRIMARY KEY NOT NULL,
	`shard` integer NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `pending_accounts_shard_idx` ON `pending_accounts` (`shard`,`created_at`);--> statement-breakpoint
CREATE TABLE `sweep_cursors` (
	`shard` integer PRIMARY KEY NOT NULL,
	`after_id` integer DEFAULT 0 NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
ALTER TABLE `shard_loads` ADD `bias` integer DEFAULT 0 NOT NULL;