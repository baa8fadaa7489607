CREATE TABLE `dashboard_exports` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`job_id` text NOT NULL,
	`account_id` integer NOT NULL,
	`deployment_id` integer NOT NULL,
	`dashboard_id` integer,
	`user_id` integer NOT NULL,
	`format` text NOT NULL,
	`filters` text NOT NULL,
	`time_grains` text NOT NULL,
	`status` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`error` text,
	`file_key` text,
	`content_type` text,
	`byte_size` integer,
	`created_at` text NOT NULL,
	`started_at` text,
	`finished_at` text,
	`expires_at` text NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`deployment_id`) REFERENCES `deployments`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`dashboard_id`) REFERENCES `published_dashboards`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `dashboard_exports_job_id_uq` ON `dashboard_exports` (`job_id`);--> statement-breakpoint
CREATE INDEX `dashboard_exports_in_flight_idx` ON `dashboard_exports` (`account_id`,`status`,`expires_at`);--> statement-breakpoint
CREATE INDEX `dashboard_exports_expires_idx` ON `dashboard_exports` (`expires_at`);--> statement-breakpoint
CREATE INDEX `dashboard_exports_deployment_idx` ON `dashboard_exports` (`deployment_id`);--> statement-breakpoint
CREATE INDEX `dashboard_exports_dashboard_idx` ON `dashboard_exports` (`dashboard_id`);--> statement-breakpoint
CREATE INDEX `dashboard_exports_user_idx` ON `dashboard_exports` (`user_id`);