CREATE TABLE `pre_aggregation_partitions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`account_id` integer NOT NULL,
	`deployment_id` integer NOT NULL,
	`build_id` integer NOT NULL,
	`pre_aggregation` text NOT NULL,
	`table_name` text NOT NULL,
	`timezone` text NOT NULL,
	`definition` text NOT NULL,
	`range_start` text,
	`range_end` text,
	`state` text NOT NULL,
	`version` integer DEFAULT 0 NOT NULL,
	`built_version` integer DEFAULT 0 NOT NULL,
	`next_refresh_at` text NOT NULL,
	`refresh_key_value` text,
	`last_built_at` text,
	`last_error` text,
	`failures` integer DEFAULT 0 NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`deployment_id`) REFERENCES `deployments`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `pre_aggregation_partitions_uq` ON `pre_aggregation_partitions` (`deployment_id`,`table_name`,`timezone`);--> statement-breakpoint
CREATE INDEX `pre_aggregation_partitions_deployment_idx` ON `pre_aggregation_partitions` (`deployment_id`,`id`);--> statement-breakpoint
CREATE INDEX `pre_aggregation_partitions_due_idx` ON `pre_aggregation_partitions` (`next_refresh_at`);--> statement-breakpoint
CREATE INDEX `pre_aggregation_partitions_state_idx` ON `pre_aggregation_partitions` (`state`);--> statement-breakpoint
CREATE INDEX `pre_aggregation_partitions_account_idx` ON `pre_aggregation_partitions` (`account_id`);--> statement-breakpoint
CREATE TABLE `pre_aggregation_plans` (
	`deployment_id` integer PRIMARY KEY NOT NULL,
	`account_id` integer NOT NULL,
	`build_id` integer NOT NULL,
	`timezones` text NOT NULL,
	`next_plan_at` text NOT NULL,
	`version` integer DEFAULT 0 NOT NULL,
	`last_error` text,
	`generation` integer DEFAULT 0 NOT NULL,
	FOREIGN KEY (`deployment_id`) REFERENCES `deployments`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `pre_aggregation_plans_due_idx` ON `pre_aggregation_plans` (`next_plan_at`);--> statement-breakpoint
CREATE INDEX `pre_aggregation_plans_account_idx` ON `pre_aggregation_plans` (`account_id`);