CREATE TABLE `user_attribute_values` (
	`user_id` integer NOT NULL,
	`attribute_id` integer NOT NULL,
	`value` text NOT NULL,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`user_id`, `attribute_id`),
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`attribute_id`) REFERENCES `embed_attributes`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `user_attribute_values_attribute_idx` ON `user_attribute_values` (`attribute_id`);--> statement-breakpoint
ALTER TABLE `dashboard_exports` ADD `render_user_id` integer;