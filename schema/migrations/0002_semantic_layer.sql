CREATE TABLE `deployment_env_vars` (
	`deployment_id` integer NOT NULL,
	`name` text NOT NULL,
	`value` text NOT NULL,
	`encrypted` integer NOT NULL,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`deployment_id`, `name`),
	FOREIGN KEY (`deployment_id`) REFERENCES `deployments`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `model_upload_files` (
	`upload_id` text NOT NULL,
	`path` text NOT NULL,
	`content` text NOT NULL,
	PRIMARY KEY(`upload_id`, `path`),
	FOREIGN KEY (`upload_id`) REFERENCES `model_uploads`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `model_uploads` (
	`id` text PRIMARY KEY NOT NULL,
	`deployment_id` integer NOT NULL,
	`created_at` text NOT NULL,
	`expires_at` text NOT NULL,
	FOREIGN KEY (`deployment_id`) REFERENCES `deployments`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `model_uploads_deployment_idx` ON `model_uploads` (`deployment_id`);--> statement-breakpoint
CREATE INDEX `model_uploads_expires_idx` ON `model_uploads` (`expires_at`);--> statement-breakpoint
ALTER TABLE `builds` ADD `compiled_model` text;--> statement-breakpoint
CREATE INDEX `builds_built_idx` ON `builds` (`deployment_id`,`id`) WHERE status = 'built';--> statement-breakpoint
ALTER TABLE `project_files` ADD `updated_at` text;