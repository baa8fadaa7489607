CREATE TABLE `dashboard_comment_guards` (
	`reason` text NOT NULL,
	CONSTRAINT "dashboard_missing" CHECK("dashboard_comment_guards"."reason" <> 'dashboard_missing'),
	CONSTRAINT "parent_missing" CHECK("dashboard_comment_guards"."reason" <> 'parent_missing'),
	CONSTRAINT "parent_is_reply" CHECK("dashboard_comment_guards"."reason" <> 'parent_is_reply'),
	CONSTRAINT "thread_full" CHECK("dashboard_comment_guards"."reason" <> 'thread_full'),
	CONSTRAINT "comment_rate" CHECK("dashboard_comment_guards"."reason" <> 'comment_rate'),
	CONSTRAINT "comment_missing" CHECK("dashboard_comment_guards"."reason" <> 'comment_missing'),
	CONSTRAINT "not_author" CHECK("dashboard_comment_guards"."reason" <> 'not_author'),
	CONSTRAINT "not_a_thread" CHECK("dashboard_comment_guards"."reason" <> 'not_a_thread')
);
--> statement-breakpoint
CREATE TABLE `dashboard_comment_mentions` (
	`comment_id` integer NOT NULL,
	`user_id` integer NOT NULL,
	PRIMARY KEY(`comment_id`, `user_id`),
	FOREIGN KEY (`comment_id`) REFERENCES `dashboard_comments`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `embed_users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `dashboard_comment_mentions_user_idx` ON `dashboard_comment_mentions` (`user_id`);--> statement-breakpoint
CREATE TABLE `dashboard_comments` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`tenant_id` integer NOT NULL,
	`dashboard_id` integer NOT NULL,
	`parent_id` integer,
	`author_id` integer,
	`body` text NOT NULL,
	`created_at` text NOT NULL,
	`edited_at` text,
	`removed_at` text,
	`resolved_at` text,
	`resolved_by` integer,
	FOREIGN KEY (`tenant_id`) REFERENCES `embed_tenants`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`dashboard_id`) REFERENCES `published_dashboards`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`parent_id`) REFERENCES `dashboard_comments`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`author_id`) REFERENCES `embed_users`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`resolved_by`) REFERENCES `embed_users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `dashboard_comments_dashboard_idx` ON `dashboard_comments` (`dashboard_id`,`tenant_id`,`id`);--> statement-breakpoint
CREATE INDEX `dashboard_comments_tenant_idx` ON `dashboard_comments` (`tenant_id`);--> statement-breakpoint
CREATE INDEX `dashboard_comments_parent_idx` ON `dashboard_comments` (`parent_id`,`id`);--> statement-breakpoint
CREATE INDEX `dashboard_comments_author_idx` ON `dashboard_comments` (`author_id`,`dashboard_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `dashboard_comments_resolver_idx` ON `dashboard_comments` (`resolved_by`);--> statement-breakpoint
CREATE INDEX `dashboard_comments_threads_idx` ON `dashboard_comments` (`dashboard_id`,`tenant_id`,`id`) WHERE parent_id IS NULL AND removed_at IS NULL;--> statement-breakpoint
CREATE INDEX `dashboard_comments_open_threads_idx` ON `dashboard_comments` (`dashboard_id`,`tenant_id`,`id`) WHERE parent_id IS NULL AND removed_at IS NULL AND resolved_at IS NULL;