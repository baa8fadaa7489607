CREATE TABLE `access_tokens` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`account_id` integer NOT NULL,
	`user_id` integer NOT NULL,
	`token_hash` text NOT NULL,
	`token_prefix` text NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `access_tokens_hash_uq` ON `access_tokens` (`token_hash`);--> statement-breakpoint
CREATE INDEX `access_tokens_user_idx` ON `access_tokens` (`user_id`,`id`);--> statement-breakpoint
CREATE TABLE `accounts` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`plan` text DEFAULT 'premium' NOT NULL,
	`use_creator_mode` integer DEFAULT false NOT NULL,
	`external_user_limit` integer DEFAULT 10000 NOT NULL,
	`embed_session_ttl_seconds` integer DEFAULT 86400 NOT NULL,
	`show_dashboard_chat` integer DEFAULT true NOT NULL,
	`allowed_embed_origins` text,
	`chat_webhook_url` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `api_keys` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`account_id` integer NOT NULL,
	`name` text NOT NULL,
	`key_hash` text NOT NULL,
	`key_prefix` text NOT NULL,
	`deployment_ids` text,
	`created_at` text NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_keys_hash_uq` ON `api_keys` (`key_hash`);--> statement-breakpoint
CREATE INDEX `api_keys_account_idx` ON `api_keys` (`account_id`,`id`);--> statement-breakpoint
CREATE TABLE `users` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`account_id` integer NOT NULL,
	`email` text NOT NULL,
	`username` text NOT NULL,
	`first_name` text DEFAULT '' NOT NULL,
	`picture` text DEFAULT '' NOT NULL,
	`role` text NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `users_account_email_uq` ON `users` (`account_id`,`email`);--> statement-breakpoint
CREATE UNIQUE INDEX `users_account_username_uq` ON `users` (`account_id`,`username`);--> statement-breakpoint
CREATE INDEX `users_account_id_idx` ON `users` (`account_id`,`id`);--> statement-breakpoint
CREATE TABLE `dashboard_versions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`published_dashboard_id` integer NOT NULL,
	`version_number` integer NOT NULL,
	`config` text NOT NULL,
	`created_by` integer,
	`created_at` text NOT NULL,
	FOREIGN KEY (`published_dashboard_id`) REFERENCES `published_dashboards`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`created_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `dashboard_versions_number_uq` ON `dashboard_versions` (`published_dashboard_id`,`version_number`);--> statement-breakpoint
CREATE TABLE `published_dashboards` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`deployment_id` integer NOT NULL,
	`workbook_id` integer NOT NULL,
	`public_id` text NOT NULL,
	`allow_embed` integer DEFAULT false NOT NULL,
	`all_embed_users` integer DEFAULT false NOT NULL,
	`title` text,
	`description` text,
	`restrict_data_download` integer DEFAULT false NOT NULL,
	`version_number` integer DEFAULT 0 NOT NULL,
	`current_version_id` integer,
	`created_by` integer,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`deployment_id`) REFERENCES `deployments`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`workbook_id`) REFERENCES `workspace_items`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`created_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `published_dashboards_workbook_uq` ON `published_dashboards` (`workbook_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `published_dashboards_public_id_uq` ON `published_dashboards` (`public_id`);--> statement-breakpoint
CREATE INDEX `published_dashboards_deployment_idx` ON `published_dashboards` (`deployment_id`,`id`);--> statement-breakpoint
CREATE TABLE `report_snapshots` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`dashboard_version_id` integer NOT NULL,
	`report_id` integer NOT NULL,
	`version_number` integer NOT NULL,
	`name` text NOT NULL,
	`title` text NOT NULL,
	`description` text NOT NULL,
	`spec` text NOT NULL,
	`sql_query` text NOT NULL,
	`meta` text NOT NULL,
	`fill_missing_rows` text,
	`period_comparisons` text NOT NULL,
	`preferences` text NOT NULL,
	FOREIGN KEY (`dashboard_version_id`) REFERENCES `dashboard_versions`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `report_snapshots_version_idx` ON `report_snapshots` (`dashboard_version_id`,`id`);--> statement-breakpoint
CREATE TABLE `builds` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`deployment_id` integer NOT NULL,
	`status` text DEFAULT 'queued' NOT NULL,
	`error_text` text,
	`attempts` integer DEFAULT 0 NOT NULL,
	`created_at` text NOT NULL,
	`started_at` text,
	`finished_at` text,
	FOREIGN KEY (`deployment_id`) REFERENCES `deployments`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `builds_deployment_idx` ON `builds` (`deployment_id`,`id`);--> statement-breakpoint
CREATE TABLE `deployments` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`account_id` integer NOT NULL,
	`name` text NOT NULL,
	`slug` text NOT NULL,
	`deployment_url` text NOT NULL,
	`is_managed` integer NOT NULL,
	`cloud_provider` text NOT NULL,
	`region` text NOT NULL,
	`target_platform` text NOT NULL,
	`creation_step` text NOT NULL,
	`creation_method` text NOT NULL,
	`deploy_mode` text NOT NULL,
	`created_by` integer,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`created_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `deployments_slug_uq` ON `deployments` (`slug`);--> statement-breakpoint
CREATE INDEX `deployments_account_idx` ON `deployments` (`account_id`,`id`);--> statement-breakpoint
CREATE TABLE `project_files` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`deployment_id` integer NOT NULL,
	`path` text NOT NULL,
	`content` text NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`deployment_id`) REFERENCES `deployments`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `project_files_path_uq` ON `project_files` (`deployment_id`,`path`);--> statement-breakpoint
CREATE TABLE `embed_attribute_values` (
	`user_id` integer NOT NULL,
	`attribute_id` integer NOT NULL,
	`value` text NOT NULL,
	PRIMARY KEY(`user_id`, `attribute_id`),
	FOREIGN KEY (`user_id`) REFERENCES `embed_users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`attribute_id`) REFERENCES `embed_attributes`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `embed_attribute_values_attribute_idx` ON `embed_attribute_values` (`attribute_id`);--> statement-breakpoint
CREATE TABLE `embed_attributes` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`account_id` integer NOT NULL,
	`tenant_id` integer,
	`name` text NOT NULL,
	`type` text NOT NULL,
	`display_name` text,
	`default_value` text,
	`description` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`tenant_id`) REFERENCES `embed_tenants`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `embed_attributes_account_name_uq` ON `embed_attributes` (`account_id`,`name`) WHERE tenant_id IS NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `embed_attributes_tenant_name_uq` ON `embed_attributes` (`tenant_id`,`name`) WHERE tenant_id IS NOT NULL;--> statement-breakpoint
CREATE INDEX `embed_attributes_scope_idx` ON `embed_attributes` (`account_id`,`tenant_id`,`id`);--> statement-breakpoint
CREATE TABLE `embed_groups` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`account_id` integer NOT NULL,
	`tenant_id` integer,
	`name` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`tenant_id`) REFERENCES `embed_tenants`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `embed_groups_account_name_uq` ON `embed_groups` (`account_id`,`name`) WHERE tenant_id IS NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `embed_groups_tenant_name_uq` ON `embed_groups` (`tenant_id`,`name`) WHERE tenant_id IS NOT NULL;--> statement-breakpoint
CREATE INDEX `embed_groups_scope_idx` ON `embed_groups` (`account_id`,`tenant_id`,`id`);--> statement-breakpoint
CREATE TABLE `embed_memberships` (
	`user_id` integer NOT NULL,
	`group_id` integer NOT NULL,
	PRIMARY KEY(`user_id`, `group_id`),
	FOREIGN KEY (`user_id`) REFERENCES `embed_users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`group_id`) REFERENCES `embed_groups`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `embed_memberships_group_idx` ON `embed_memberships` (`group_id`);--> statement-breakpoint
CREATE TABLE `embed_session_revocations` (
	`session_id` text PRIMARY KEY NOT NULL,
	`account_id` integer NOT NULL,
	`expires_at` text NOT NULL,
	`revoked_at` text NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `embed_session_revocations_expires_idx` ON `embed_session_revocations` (`expires_at`);--> statement-breakpoint
CREATE TABLE `embed_tenants` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`account_id` integer NOT NULL,
	`name` text NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `embed_tenants_account_name_uq` ON `embed_tenants` (`account_id`,`name`);--> statement-breakpoint
CREATE TABLE `embed_users` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`account_id` integer NOT NULL,
	`tenant_id` integer NOT NULL,
	`external_id` text NOT NULL,
	`email` text,
	`display_name` text,
	`picture` text,
	`security_context` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`tenant_id`) REFERENCES `embed_tenants`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `embed_users_tenant_external_uq` ON `embed_users` (`tenant_id`,`external_id`);--> statement-breakpoint
CREATE INDEX `embed_users_account_idx` ON `embed_users` (`account_id`);--> statement-breakpoint
CREATE TABLE `embed_write_guards` (
	`reason` text NOT NULL,
	CONSTRAINT "quota_exceeded" CHECK("embed_write_guards"."reason" <> 'quota_exceeded'),
	CONSTRAINT "type_conflict" CHECK("embed_write_guards"."reason" <> 'type_conflict')
);
--> statement-breakpoint
CREATE TABLE `notification_deliveries` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`run_id` integer NOT NULL,
	`recipient_id` integer NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`last_error` text,
	`lease_until` text,
	`lease_owner` text,
	`sent_at` text,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`run_id`) REFERENCES `notification_runs`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`recipient_id`) REFERENCES `notification_recipients`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `notification_deliveries_run_recipient_uq` ON `notification_deliveries` (`run_id`,`recipient_id`);--> statement-breakpoint
CREATE TABLE `notification_recipients` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`notification_id` integer NOT NULL,
	`type` text NOT NULL,
	`recipient_key` text NOT NULL,
	`user_id` integer,
	`email` text,
	`embed_user_id` integer,
	`channel_id` text,
	`channel_name` text,
	`groups` text,
	`user_attributes` text,
	`security_context` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`notification_id`) REFERENCES `notifications`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`embed_user_id`) REFERENCES `embed_users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `notification_recipients_key_uq` ON `notification_recipients` (`notification_id`,`recipient_key`);--> statement-breakpoint
CREATE INDEX `notification_recipients_list_idx` ON `notification_recipients` (`notification_id`,`id`);--> statement-breakpoint
CREATE TABLE `notification_runs` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`notification_id` integer NOT NULL,
	`slot` text NOT NULL,
	`trigger` text NOT NULL,
	`status` text NOT NULL,
	`error` text,
	`enqueued_at` text,
	`started_at` text,
	`finished_at` text,
	`created_at` text NOT NULL,
	FOREIGN KEY (`notification_id`) REFERENCES `notifications`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `notification_runs_slot_uq` ON `notification_runs` (`notification_id`,`slot`) WHERE "trigger" = 'scheduled';--> statement-breakpoint
CREATE INDEX `notification_runs_list_idx` ON `notification_runs` (`notification_id`,`id`);--> statement-breakpoint
CREATE INDEX `notification_runs_status_idx` ON `notification_runs` (`status`,`enqueued_at`);--> statement-breakpoint
CREATE TABLE `notifications` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`account_id` integer NOT NULL,
	`deployment_id` integer NOT NULL,
	`dashboard_id` integer NOT NULL,
	`schedule_type` text NOT NULL,
	`minute` integer,
	`hour` integer,
	`day_of_week` integer,
	`day_of_month` integer,
	`custom_cron` text,
	`cron_expression` text NOT NULL,
	`timezone` text NOT NULL,
	`notification_format` text NOT NULL,
	`is_enabled` integer NOT NULL,
	`notification_enabled` integer NOT NULL,
	`filters` text NOT NULL,
	`time_grains` text NOT NULL,
	`next_run_at` text,
	`created_by` integer,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`deployment_id`) REFERENCES `deployments`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`dashboard_id`) REFERENCES `published_dashboards`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`created_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `notifications_next_run_idx` ON `notifications` (`next_run_at`,`id`);--> statement-breakpoint
CREATE INDEX `notifications_deployment_idx` ON `notifications` (`deployment_id`,`id`);--> statement-breakpoint
CREATE INDEX `notifications_dashboard_idx` ON `notifications` (`deployment_id`,`dashboard_id`,`id`);--> statement-breakpoint
CREATE TABLE `reports` (
	`item_id` integer PRIMARY KEY NOT NULL,
	`workbook_id` integer,
	`version_number` integer DEFAULT 1 NOT NULL,
	`title` text DEFAULT '' NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`spec` text DEFAULT '' NOT NULL,
	`sql_query` text DEFAULT '' NOT NULL,
	`meta` text NOT NULL,
	`fill_missing_rows` text,
	`period_comparisons` text NOT NULL,
	`preferences` text NOT NULL,
	FOREIGN KEY (`item_id`) REFERENCES `workspace_items`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`workbook_id`) REFERENCES `workspace_items`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `reports_workbook_idx` ON `reports` (`workbook_id`);--> statement-breakpoint
CREATE TABLE `workbooks` (
	`item_id` integer PRIMARY KEY NOT NULL,
	`deployment_id` integer NOT NULL,
	`slug` text NOT NULL,
	`meta` text NOT NULL,
	`calculated_fields` text NOT NULL,
	`dashboard_draft` text,
	FOREIGN KEY (`item_id`) REFERENCES `workspace_items`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`deployment_id`) REFERENCES `deployments`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `workbooks_slug_uq` ON `workbooks` (`deployment_id`,`slug`);--> statement-breakpoint
CREATE TABLE `workspace_favorites` (
	`user_id` integer NOT NULL,
	`item_id` integer NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`user_id`, `item_id`),
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`item_id`) REFERENCES `workspace_items`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `workspace_favorites_item_idx` ON `workspace_favorites` (`item_id`);--> statement-breakpoint
CREATE TABLE `workspace_items` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`deployment_id` integer NOT NULL,
	`type` text NOT NULL,
	`name` text NOT NULL,
	`name_key` text NOT NULL,
	`folder_id` integer,
	`position` integer DEFAULT 0 NOT NULL,
	`created_by` integer,
	`updated_by` integer,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`deployment_id`) REFERENCES `deployments`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`folder_id`) REFERENCES `workspace_items`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`created_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`updated_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `workspace_items_folder_updated_idx` ON `workspace_items` (`deployment_id`,`folder_id`,`type`,`updated_at`,`id`);--> statement-breakpoint
CREATE INDEX `workspace_items_folder_created_idx` ON `workspace_items` (`deployment_id`,`folder_id`,`type`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `workspace_items_folder_name_idx` ON `workspace_items` (`deployment_id`,`folder_id`,`type`,`name_key`,`id`);--> statement-breakpoint
CREATE INDEX `workspace_items_folder_id_idx` ON `workspace_items` (`deployment_id`,`folder_id`,`type`,`id`);--> statement-breakpoint
CREATE INDEX `workspace_items_all_updated_idx` ON `workspace_items` (`deployment_id`,`type`,`updated_at`,`id`);--> statement-breakpoint
CREATE INDEX `workspace_items_all_created_idx` ON `workspace_items` (`deployment_id`,`type`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `workspace_items_all_name_idx` ON `workspace_items` (`deployment_id`,`type`,`name_key`,`id`);--> statement-breakpoint
CREATE INDEX `workspace_items_all_id_idx` ON `workspace_items` (`deployment_id`,`type`,`id`);--> statement-breakpoint
CREATE INDEX `workspace_items_parent_idx` ON `workspace_items` (`folder_id`,`type`);--> statement-breakpoint
CREATE TABLE `workspace_views` (
	`user_id` integer NOT NULL,
	`item_id` integer NOT NULL,
	`deployment_id` integer NOT NULL,
	`viewed_at` text NOT NULL,
	PRIMARY KEY(`user_id`, `item_id`),
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`item_id`) REFERENCES `workspace_items`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`deployment_id`) REFERENCES `deployments`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `workspace_views_order_idx` ON `workspace_views` (`user_id`,`deployment_id`,`viewed_at`,`item_id`);--> statement-breakpoint
CREATE INDEX `workspace_views_item_idx` ON `workspace_views` (`item_id`);