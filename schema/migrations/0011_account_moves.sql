CREATE TABLE `forwards` (
	`kind` text NOT NULL,
	`key` text NOT NULL,
	`shard` integer NOT NULL,
	`account_id` integer NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`kind`, `key`)
);
--> statement-breakpoint
CREATE INDEX `forwards_account_idx` ON `forwards` (`account_id`);--> statement-breakpoint
ALTER TABLE `accounts` ADD `frozen_at` text;--> statement-breakpoint
ALTER TABLE `accounts` ADD `moved_to` integer;--> statement-breakpoint
CREATE INDEX `accounts_frozen_idx` ON `accounts` (`id`) WHERE frozen_at IS NOT NULL;