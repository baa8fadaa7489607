CREATE TABLE `account_settings` (
	`account_id` integer PRIMARY KEY NOT NULL,
	`audit_log_enabled` integer DEFAULT false NOT NULL,
	`audit_log_changed_at` integer DEFAULT 0 NOT NULL,
	`has_support_access` integer DEFAULT false NOT NULL,
	`maintenance_window_enabled` integer DEFAULT false NOT NULL,
	`maintenance_window_day` text DEFAULT 'sunday' NOT NULL,
	`maintenance_window_time` text DEFAULT '00:00' NOT NULL,
	`oidc_enabled` integer DEFAULT false NOT NULL,
	`use_aibi_user_interface` integer DEFAULT false NOT NULL,
	`app_config` text DEFAULT '{}' NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade
);
