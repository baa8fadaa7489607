CREATE TABLE `claimed_names` (
	`kind` text NOT NULL,
	`name` text NOT NULL,
	`account_id` integer NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`kind`, `name`)
);
--> statement-breakpoint
CREATE TABLE `accounts` (
	`id` integer PRIMARY KEY NOT NULL,
	`shard` integer NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `accounts_shard_idx` ON `accounts` (`shard`,`id`);--> statement-breakpoint
CREATE TABLE `shard_loads` (
	`shard` integer PRIMARY KEY NOT NULL,
	`accounts` integer DEFAULT 0 NOT NULL
);
