CREATE TABLE `account_moves` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`account_id` integer NOT NULL,
	`from_shard` integer NOT NULL,
	`to_shard` integer NOT NULL,
	`state` text NOT NULL,
	`step` integer DEFAULT 0 NOT NULL,
	`cursor` text,
	`version` integer DEFAULT 0 NOT NULL,
	`counts` text NOT NULL,
	`waits` integer DEFAULT 0 NOT NULL,
	`error` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`finished_at` text
);
--> statement-breakpoint
CREATE INDEX `account_moves_account_idx` ON `account_moves` (`account_id`,`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `account_moves_running_idx` ON `account_moves` (`account_id`) WHERE "account_moves"."finished_at" IS NULL;