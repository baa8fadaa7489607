CREATE TABLE `notification_write_guards` (
	`reason` text NOT NULL,
	CONSTRAINT "recipient_limit" CHECK("notification_write_guards"."reason" <> 'recipient_limit')
);
--> statement-breakpoint
CREATE INDEX `notification_deliveries_recipient_idx` ON `notification_deliveries` (`recipient_id`);--> statement-breakpoint
CREATE INDEX `notification_recipients_user_idx` ON `notification_recipients` (`user_id`);--> statement-breakpoint
CREATE INDEX `notification_recipients_embed_user_idx` ON `notification_recipients` (`embed_user_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `notification_runs_manual_inflight_uq` ON `notification_runs` (`notification_id`) WHERE "trigger" = 'manual' AND "status" IN ('queued', 'running');--> statement-breakpoint
CREATE INDEX `notifications_account_idx` ON `notifications` (`account_id`,`deployment_id`,`id`);--> statement-breakpoint
CREATE INDEX `notifications_dashboard_fk_idx` ON `notifications` (`dashboard_id`);--> statement-breakpoint
CREATE INDEX `notifications_created_by_idx` ON `notifications` (`created_by`);