CREATE TABLE `notification_write_guards` (
	`reason` text NOT NULL,
	CONSTRAINT "recipient_limit" CHECK("notification_write_guards"."reason" <> 'recipient_limit')
);
--> statement-breakpoint
ALTER TABLE `accounts` ADD `external_user_count` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX `embed_session_revocations_account_idx` ON `embed_session_revocations` (`account_id`);--> statement-breakpoint
CREATE INDEX `notification_deliveries_recipient_idx` ON `notification_deliveries` (`recipient_id`);--> statement-breakpoint
CREATE INDEX `notification_recipients_user_idx` ON `notification_recipients` (`user_id`);--> statement-breakpoint
CREATE INDEX `notification_recipients_embed_user_idx` ON `notification_recipients` (`embed_user_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `notification_runs_manual_inflight_uq` ON `notification_runs` (`notification_id`) WHERE "trigger" = 'manual' AND "status" IN ('queued', 'running');--> statement-breakpoint
CREATE INDEX `notifications_account_idx` ON `notifications` (`account_id`,`deployment_id`,`id`);--> statement-breakpoint
CREATE INDEX `notifications_dashboard_fk_idx` ON `notifications` (`dashboard_id`);--> statement-breakpoint
CREATE INDEX `notifications_created_by_idx` ON `notifications` (`created_by`);--> statement-breakpoint
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_embed_write_guards` (
	`reason` text NOT NULL,
	CONSTRAINT "quota_exceeded" CHECK("__new_embed_write_guards"."reason" <> 'quota_exceeded'),
	CONSTRAINT "type_conflict" CHECK("__new_embed_write_guards"."reason" <> 'type_conflict'),
	CONSTRAINT "catalogue_full" CHECK("__new_embed_write_guards"."reason" <> 'catalogue_full'),
	CONSTRAINT "stale_read" CHECK("__new_embed_write_guards"."reason" <> 'stale_read')
);
--> statement-breakpoint
INSERT INTO `__new_embed_write_guards`("reason") SELECT "reason" FROM `embed_write_guards`;--> statement-breakpoint
DROP TABLE `embed_write_guards`;--> statement-breakpoint
ALTER TABLE `__new_embed_write_guards` RENAME TO `embed_write_guards`;--> statement-breakpoint
PRAGMA foreign_keys=ON;
--> statement-breakpoint
-- custom:embedding
-- The external-user quota is a counter on accounts, kept by triggers inside the very statement
-- that inserts or deletes an embed user (a mint, a notification recipient, a cascade), so it
-- can never drift from the rows and the quota guard reads one row instead of counting.
UPDATE accounts SET external_user_count = (SELECT count(*) FROM embed_users u WHERE u.account_id = accounts.id);
--> statement-breakpoint
CREATE TRIGGER embed_users_count_insert AFTER INSERT ON embed_users BEGIN
  UPDATE accounts SET external_user_count = external_user_count + 1 WHERE id = NEW.account_id;
END;
--> statement-breakpoint
CREATE TRIGGER embed_users_count_delete AFTER DELETE ON embed_users BEGIN
  UPDATE accounts SET external_user_count = external_user_count - 1 WHERE id = OLD.account_id;
END;
