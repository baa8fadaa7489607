ALTER TABLE `notifications` ADD `member_switchers` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `notifications` ADD `notification_ai_summary` integer DEFAULT false NOT NULL;