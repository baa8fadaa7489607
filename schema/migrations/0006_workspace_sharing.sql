CREATE TABLE `embed_tenant_shares` (
	`workbook_id` integer NOT NULL,
	`tenant_id` integer NOT NULL,
	`deployment_id` integer NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`workbook_id`, `tenant_id`),
	FOREIGN KEY (`workbook_id`) REFERENCES `workspace_items`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`tenant_id`) REFERENCES `embed_tenants`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`deployment_id`) REFERENCES `deployments`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `embed_tenant_shares_tenant_idx` ON `embed_tenant_shares` (`tenant_id`);--> statement-breakpoint
CREATE INDEX `embed_tenant_shares_deployment_idx` ON `embed_tenant_shares` (`deployment_id`);--> statement-breakpoint
CREATE TABLE `shared_workspace_items` (
	`audience_id` integer NOT NULL,
	`item_id` integer NOT NULL,
	`deployment_id` integer NOT NULL,
	`folder_id` integer,
	`type` text NOT NULL,
	`name_key` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`shared` integer DEFAULT 0 NOT NULL,
	`nested` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`audience_id`, `item_id`),
	FOREIGN KEY (`item_id`) REFERENCES `workspace_items`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`deployment_id`) REFERENCES `deployments`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `shared_workspace_items_item_idx` ON `shared_workspace_items` (`item_id`);--> statement-breakpoint
CREATE INDEX `shared_workspace_items_folder_name_idx` ON `shared_workspace_items` (`deployment_id`,`audience_id`,`folder_id`,`type`,`name_key`,`item_id`);--> statement-breakpoint
CREATE INDEX `shared_workspace_items_folder_updated_idx` ON `shared_workspace_items` (`deployment_id`,`audience_id`,`folder_id`,`type`,`updated_at`,`item_id`);--> statement-breakpoint
CREATE INDEX `shared_workspace_items_folder_created_idx` ON `shared_workspace_items` (`deployment_id`,`audience_id`,`folder_id`,`type`,`created_at`,`item_id`);--> statement-breakpoint
CREATE INDEX `shared_workspace_items_folder_id_idx` ON `shared_workspace_items` (`deployment_id`,`audience_id`,`folder_id`,`type`,`item_id`);--> statement-breakpoint
CREATE INDEX `shared_workspace_items_all_id_idx` ON `shared_workspace_items` (`deployment_id`,`audience_id`,`type`,`item_id`);
--> statement-breakpoint
-- custom:workspace-sharing
-- shared_workspace_items holds what each audience's shared workspace shows (an embed tenant's
-- id, or 0 for all embed users): every shared workbook (shared = 1) and every folder above one
-- (nested = the shared workbooks inside it, at any depth). The triggers below keep it in the
-- same statement as every write that changes it, whichever code path writes: a share or
-- unshare (embed_tenant_shares, published_dashboards.all_embed_users), and every move, rename
-- and delete of a workspace item (FK cascades fire them too). A folder's ancestors are read by
-- a chain of 10 primary-key joins (MAX_FOLDER_DEPTH; triggers cannot hold a recursive CTE), and
-- a moved or deleted item takes its weight (shared + nested) out of its old ancestors and into
-- its new ones, so each write costs its item's ancestors, never the workspace.
-- Workbooks already shared with all embed users, and the folders above them.
INSERT INTO shared_workspace_items (audience_id, item_id, deployment_id, folder_id, type, name_key, created_at, updated_at, shared, nested)
  SELECT 0, i.id, i.deployment_id, i.folder_id, i.type, i.name_key, i.created_at, i.updated_at, 1, 0
  FROM published_dashboards pd JOIN workspace_items i ON i.id = pd.workbook_id WHERE pd.all_embed_users = 1;
WITH RECURSIVE up(folder_id, n) AS (
    SELECT i.folder_id, 1 FROM published_dashboards pd JOIN workspace_items i ON i.id = pd.workbook_id
    WHERE pd.all_embed_users = 1 AND i.folder_id IS NOT NULL
    UNION ALL
    SELECT f.folder_id, up.n + 1 FROM up JOIN workspace_items f ON f.id = up.folder_id
    WHERE f.folder_id IS NOT NULL AND up.n < 64)
  INSERT INTO shared_workspace_items (audience_id, item_id, deployment_id, folder_id, type, name_key, created_at, updated_at, shared, nested)
  SELECT 0, f.id, f.deployment_id, f.folder_id, f.type, f.name_key, f.created_at, f.updated_at, 0, count(*)
  FROM up JOIN workspace_items f ON f.id = up.folder_id GROUP BY f.id;
CREATE TRIGGER embed_tenant_shares_share AFTER INSERT ON embed_tenant_shares BEGIN
  INSERT INTO shared_workspace_items (audience_id, item_id, deployment_id, folder_id, type, name_key, created_at, updated_at, shared, nested)
    SELECT NEW.tenant_id, i.id, i.deployment_id, i.folder_id, i.type, i.name_key, i.created_at, i.updated_at, 1, 0
    FROM workspace_items i WHERE i.id = NEW.workbook_id
    ON CONFLICT (audience_id, item_id) DO UPDATE SET shared = 1;
  INSERT INTO shared_workspace_items (audience_id, item_id, deployment_id, folder_id, type, name_key, created_at, updated_at, shared, nested)
    SELECT NEW.tenant_id, i.id, i.deployment_id, i.folder_id, i.type, i.name_key, i.created_at, i.updated_at, 0, 1
    FROM workspace_items i WHERE i.id IN (SELECT j.value FROM workspace_items f0 LEFT JOIN workspace_items f1 ON f1.id = f0.folder_id LEFT JOIN workspace_items f2 ON f2.id = f1.folder_id LEFT JOIN workspace_items f3 ON f3.id = f2.folder_id LEFT JOIN workspace_items f4 ON f4.id = f3.folder_id LEFT JOIN workspace_items f5 ON f5.id = f4.folder_id LEFT JOIN workspace_items f6 ON f6.id = f5.folder_id LEFT JOIN workspace_items f7 ON f7.id = f6.folder_id LEFT JOIN workspace_items f8 ON f8.id = f7.folder_id LEFT JOIN workspace_items f9 ON f9.id = f8.folder_id, json_each(json_array(f0.id, f1.id, f2.id, f3.id, f4.id, f5.id, f6.id, f7.id, f8.id, f9.id)) j WHERE f0.id = (SELECT folder_id FROM workspace_items WHERE id = NEW.workbook_id) AND j.value IS NOT NULL)
    ON CONFLICT (audience_id, item_id) DO UPDATE SET nested = nested + 1;
END;
CREATE TRIGGER embed_tenant_shares_unshare AFTER DELETE ON embed_tenant_shares
  WHEN EXISTS (SELECT 1 FROM shared_workspace_items WHERE audience_id = OLD.tenant_id AND item_id = OLD.workbook_id AND shared = 1)
BEGIN
  UPDATE shared_workspace_items SET nested = nested - 1
    WHERE audience_id = OLD.tenant_id AND item_id IN (SELECT j.value FROM workspace_items f0 LEFT JOIN workspace_items f1 ON f1.id = f0.folder_id LEFT JOIN workspace_items f2 ON f2.id = f1.folder_id LEFT JOIN workspace_items f3 ON f3.id = f2.folder_id LEFT JOIN workspace_items f4 ON f4.id = f3.folder_id LEFT JOIN workspace_items f5 ON f5.id = f4.folder_id LEFT JOIN workspace_items f6 ON f6.id = f5.folder_id LEFT JOIN workspace_items f7 ON f7.id = f6.folder_id LEFT JOIN workspace_items f8 ON f8.id = f7.folder_id LEFT JOIN workspace_items f9 ON f9.id = f8.folder_id, json_each(json_array(f0.id, f1.id, f2.id, f3.id, f4.id, f5.id, f6.id, f7.id, f8.id, f9.id)) j WHERE f0.id = (SELECT folder_id FROM workspace_items WHERE id = OLD.workbook_id) AND j.value IS NOT NULL);
  DELETE FROM shared_workspace_items
    WHERE audience_id = OLD.tenant_id AND item_id IN (SELECT j.value FROM workspace_items f0 LEFT JOIN workspace_items f1 ON f1.id = f0.folder_id LEFT JOIN workspace_items f2 ON f2.id = f1.folder_id LEFT JOIN workspace_items f3 ON f3.id = f2.folder_id LEFT JOIN workspace_items f4 ON f4.id = f3.folder_id LEFT JOIN workspace_items f5 ON f5.id = f4.folder_id LEFT JOIN workspace_items f6 ON f6.id = f5.folder_id LEFT JOIN workspace_items f7 ON f7.id = f6.folder_id LEFT JOIN workspace_items f8 ON f8.id = f7.folder_id LEFT JOIN workspace_items f9 ON f9.id = f8.folder_id, json_each(json_array(f0.id, f1.id, f2.id, f3.id, f4.id, f5.id, f6.id, f7.id, f8.id, f9.id)) j WHERE f0.id = (SELECT folder_id FROM workspace_items WHERE id = OLD.workbook_id) AND j.value IS NOT NULL) AND shared = 0 AND nested <= 0;
  DELETE FROM shared_workspace_items WHERE audience_id = OLD.tenant_id AND item_id = OLD.workbook_id;
END;
CREATE TRIGGER published_dashboards_share_all AFTER UPDATE OF all_embed_users ON published_dashboards
  WHEN NEW.all_embed_users = 1 AND OLD.all_embed_users = 0
BEGIN
  INSERT INTO shared_workspace_items (audience_id, item_id, deployment_id, folder_id, type, name_key, created_at, updated_at, shared, nested)
    SELECT 0, i.id, i.deployment_id, i.folder_id, i.type, i.name_key, i.created_at, i.updated_at, 1, 0
    FROM workspace_items i WHERE i.id = NEW.workbook_id
    ON CONFLICT (audience_id, item_id) DO UPDATE SET shared = 1;
  INSERT INTO shared_workspace_items (audience_id, item_id, deployment_id, folder_id, type, name_key, created_at, updated_at, shared, nested)
    SELECT 0, i.id, i.deployment_id, i.folder_id, i.type, i.name_key, i.created_at, i.updated_at, 0, 1
    FROM workspace_items i WHERE i.id IN (SELECT j.value FROM workspace_items f0 LEFT JOIN workspace_items f1 ON f1.id = f0.folder_id LEFT JOIN workspace_items f2 ON f2.id = f1.folder_id LEFT JOIN workspace_items f3 ON f3.id = f2.folder_id LEFT JOIN workspace_items f4 ON f4.id = f3.folder_id LEFT JOIN workspace_items f5 ON f5.id = f4.folder_id LEFT JOIN workspace_items f6 ON f6.id = f5.folder_id LEFT JOIN workspace_items f7 ON f7.id = f6.folder_id LEFT JOIN workspace_items f8 ON f8.id = f7.folder_id LEFT JOIN workspace_items f9 ON f9.id = f8.folder_id, json_each(json_array(f0.id, f1.id, f2.id, f3.id, f4.id, f5.id, f6.id, f7.id, f8.id, f9.id)) j WHERE f0.id = (SELECT folder_id FROM workspace_items WHERE id = NEW.workbook_id) AND j.value IS NOT NULL)
    ON CONFLICT (audience_id, item_id) DO UPDATE SET nested = nested + 1;
END;
CREATE TRIGGER published_dashboards_unshare_all AFTER UPDATE OF all_embed_users ON published_dashboards
  WHEN NEW.all_embed_users = 0 AND OLD.all_embed_users = 1 AND EXISTS (SELECT 1 FROM shared_workspace_items WHERE audience_id = 0 AND item_id = NEW.workbook_id AND shared = 1)
BEGIN
  UPDATE shared_workspace_items SET nested = nested - 1
    WHERE audience_id = 0 AND item_id IN (SELECT j.value FROM workspace_items f0 LEFT JOIN workspace_items f1 ON f1.id = f0.folder_id LEFT JOIN workspace_items f2 ON f2.id = f1.folder_id LEFT JOIN workspace_items f3 ON f3.id = f2.folder_id LEFT JOIN workspace_items f4 ON f4.id = f3.folder_id LEFT JOIN workspace_items f5 ON f5.id = f4.folder_id LEFT JOIN workspace_items f6 ON f6.id = f5.folder_id LEFT JOIN workspace_items f7 ON f7.id = f6.folder_id LEFT JOIN workspace_items f8 ON f8.id = f7.folder_id LEFT JOIN workspace_items f9 ON f9.id = f8.folder_id, json_each(json_array(f0.id, f1.id, f2.id, f3.id, f4.id, f5.id, f6.id, f7.id, f8.id, f9.id)) j WHERE f0.id = (SELECT folder_id FROM workspace_items WHERE id = NEW.workbook_id) AND j.value IS NOT NULL);
  DELETE FROM shared_workspace_items
    WHERE audience_id = 0 AND item_id IN (SELECT j.value FROM workspace_items f0 LEFT JOIN workspace_items f1 ON f1.id = f0.folder_id LEFT JOIN workspace_items f2 ON f2.id = f1.folder_id LEFT JOIN workspace_items f3 ON f3.id = f2.folder_id LEFT JOIN workspace_items f4 ON f4.id = f3.folder_id LEFT JOIN workspace_items f5 ON f5.id = f4.folder_id LEFT JOIN workspace_items f6 ON f6.id = f5.folder_id LEFT JOIN workspace_items f7 ON f7.id = f6.folder_id LEFT JOIN workspace_items f8 ON f8.id = f7.folder_id LEFT JOIN workspace_items f9 ON f9.id = f8.folder_id, json_each(json_array(f0.id, f1.id, f2.id, f3.id, f4.id, f5.id, f6.id, f7.id, f8.id, f9.id)) j WHERE f0.id = (SELECT folder_id FROM workspace_items WHERE id = NEW.workbook_id) AND j.value IS NOT NULL) AND shared = 0 AND nested <= 0;
  DELETE FROM shared_workspace_items WHERE audience_id = 0 AND item_id = NEW.workbook_id;
END;
CREATE TRIGGER published_dashboards_share_all_insert AFTER INSERT ON published_dashboards
  WHEN NEW.all_embed_users = 1
BEGIN
  INSERT INTO shared_workspace_items (audience_id, item_id, deployment_id, folder_id, type, name_key, created_at, updated_at, shared, nested)
    SELECT 0, i.id, i.deployment_id, i.folder_id, i.type, i.name_key, i.created_at, i.updated_at, 1, 0
    FROM workspace_items i WHERE i.id = NEW.workbook_id
    ON CONFLICT (audience_id, item_id) DO UPDATE SET shared = 1;
  INSERT INTO shared_workspace_items (audience_id, item_id, deployment_id, folder_id, type, name_key, created_at, updated_at, shared, nested)
    SELECT 0, i.id, i.deployment_id, i.folder_id, i.type, i.name_key, i.created_at, i.updated_at, 0, 1
    FROM workspace_items i WHERE i.id IN (SELECT j.value FROM workspace_items f0 LEFT JOIN workspace_items f1 ON f1.id = f0.folder_id LEFT JOIN workspace_items f2 ON f2.id = f1.folder_id LEFT JOIN workspace_items f3 ON f3.id = f2.folder_id LEFT JOIN workspace_items f4 ON f4.id = f3.folder_id LEFT JOIN workspace_items f5 ON f5.id = f4.folder_id LEFT JOIN workspace_items f6 ON f6.id = f5.folder_id LEFT JOIN workspace_items f7 ON f7.id = f6.folder_id LEFT JOIN workspace_items f8 ON f8.id = f7.folder_id LEFT JOIN workspace_items f9 ON f9.id = f8.folder_id, json_each(json_array(f0.id, f1.id, f2.id, f3.id, f4.id, f5.id, f6.id, f7.id, f8.id, f9.id)) j WHERE f0.id = (SELECT folder_id FROM workspace_items WHERE id = NEW.workbook_id) AND j.value IS NOT NULL)
    ON CONFLICT (audience_id, item_id) DO UPDATE SET nested = nested + 1;
END;
CREATE TRIGGER published_dashboards_unshare_all_delete AFTER DELETE ON published_dashboards
  WHEN OLD.all_embed_users = 1 AND EXISTS (SELECT 1 FROM shared_workspace_items WHERE audience_id = 0 AND item_id = OLD.workbook_id AND shared = 1)
BEGIN
  UPDATE shared_workspace_items SET nested = nested - 1
    WHERE audience_id = 0 AND item_id IN (SELECT j.value FROM workspace_items f0 LEFT JOIN workspace_items f1 ON f1.id = f0.folder_id LEFT JOIN workspace_items f2 ON f2.id = f1.folder_id LEFT JOIN workspace_items f3 ON f3.id = f2.folder_id LEFT JOIN workspace_items f4 ON f4.id = f3.folder_id LEFT JOIN workspace_items f5 ON f5.id = f4.folder_id LEFT JOIN workspace_items f6 ON f6.id = f5.folder_id LEFT JOIN workspace_items f7 ON f7.id = f6.folder_id LEFT JOIN workspace_items f8 ON f8.id = f7.folder_id LEFT JOIN workspace_items f9 ON f9.id = f8.folder_id, json_each(json_array(f0.id, f1.id, f2.id, f3.id, f4.id, f5.id, f6.id, f7.id, f8.id, f9.id)) j WHERE f0.id = (SELECT folder_id FROM workspace_items WHERE id = OLD.workbook_id) AND j.value IS NOT NULL);
  DELETE FROM shared_workspace_items
    WHERE audience_id = 0 AND item_id IN (SELECT j.value FROM workspace_items f0 LEFT JOIN workspace_items f1 ON f1.id = f0.folder_id LEFT JOIN workspace_items f2 ON f2.id = f1.folder_id LEFT JOIN workspace_items f3 ON f3.id = f2.folder_id LEFT JOIN workspace_items f4 ON f4.id = f3.folder_id LEFT JOIN workspace_items f5 ON f5.id = f4.folder_id LEFT JOIN workspace_items f6 ON f6.id = f5.folder_id LEFT JOIN workspace_items f7 ON f7.id = f6.folder_id LEFT JOIN workspace_items f8 ON f8.id = f7.folder_id LEFT JOIN workspace_items f9 ON f9.id = f8.folder_id, json_each(json_array(f0.id, f1.id, f2.id, f3.id, f4.id, f5.id, f6.id, f7.id, f8.id, f9.id)) j WHERE f0.id = (SELECT folder_id FROM workspace_items WHERE id = OLD.workbook_id) AND j.value IS NOT NULL) AND shared = 0 AND nested <= 0;
  DELETE FROM shared_workspace_items WHERE audience_id = 0 AND item_id = OLD.workbook_id;
END;
CREATE TRIGGER workspace_items_shared_move AFTER UPDATE OF folder_id ON workspace_items
  WHEN OLD.folder_id IS NOT NEW.folder_id AND EXISTS (SELECT audience_id FROM shared_workspace_items WHERE item_id = NEW.id)
BEGIN
  UPDATE shared_workspace_items SET nested = nested - (SELECT m.shared + m.nested FROM shared_workspace_items m WHERE m.audience_id = shared_workspace_items.audience_id AND m.item_id = NEW.id)
    WHERE audience_id IN (SELECT audience_id FROM shared_workspace_items WHERE item_id = NEW.id) AND item_id IN (SELECT j.value FROM workspace_items f0 LEFT JOIN workspace_items f1 ON f1.id = f0.folder_id LEFT JOIN workspace_items f2 ON f2.id = f1.folder_id LEFT JOIN workspace_items f3 ON f3.id = f2.folder_id LEFT JOIN workspace_items f4 ON f4.id = f3.folder_id LEFT JOIN workspace_items f5 ON f5.id = f4.folder_id LEFT JOIN workspace_items f6 ON f6.id = f5.folder_id LEFT JOIN workspace_items f7 ON f7.id = f6.folder_id LEFT JOIN workspace_items f8 ON f8.id = f7.folder_id LEFT JOIN workspace_items f9 ON f9.id = f8.folder_id, json_each(json_array(f0.id, f1.id, f2.id, f3.id, f4.id, f5.id, f6.id, f7.id, f8.id, f9.id)) j WHERE f0.id = OLD.folder_id AND j.value IS NOT NULL);
  DELETE FROM shared_workspace_items
    WHERE audience_id IN (SELECT audience_id FROM shared_workspace_items WHERE item_id = NEW.id) AND item_id IN (SELECT j.value FROM workspace_items f0 LEFT JOIN workspace_items f1 ON f1.id = f0.folder_id LEFT JOIN workspace_items f2 ON f2.id = f1.folder_id LEFT JOIN workspace_items f3 ON f3.id = f2.folder_id LEFT JOIN workspace_items f4 ON f4.id = f3.folder_id LEFT JOIN workspace_items f5 ON f5.id = f4.folder_id LEFT JOIN workspace_items f6 ON f6.id = f5.folder_id LEFT JOIN workspace_items f7 ON f7.id = f6.folder_id LEFT JOIN workspace_items f8 ON f8.id = f7.folder_id LEFT JOIN workspace_items f9 ON f9.id = f8.folder_id, json_each(json_array(f0.id, f1.id, f2.id, f3.id, f4.id, f5.id, f6.id, f7.id, f8.id, f9.id)) j WHERE f0.id = OLD.folder_id AND j.value IS NOT NULL) AND shared = 0 AND nested <= 0;
  INSERT INTO shared_workspace_items (audience_id, item_id, deployment_id, folder_id, type, name_key, created_at, updated_at, shared, nested)
    SELECT m.audience_id, i.id, i.deployment_id, i.folder_id, i.type, i.name_key, i.created_at, i.updated_at, 0, m.shared + m.nested
    FROM shared_workspace_items m, workspace_items i WHERE m.item_id = NEW.id AND i.id IN (SELECT j.value FROM workspace_items f0 LEFT JOIN workspace_items f1 ON f1.id = f0.folder_id LEFT JOIN workspace_items f2 ON f2.id = f1.folder_id LEFT JOIN workspace_items f3 ON f3.id = f2.folder_id LEFT JOIN workspace_items f4 ON f4.id = f3.folder_id LEFT JOIN workspace_items f5 ON f5.id = f4.folder_id LEFT JOIN workspace_items f6 ON f6.id = f5.folder_id LEFT JOIN workspace_items f7 ON f7.id = f6.folder_id LEFT JOIN workspace_items f8 ON f8.id = f7.folder_id LEFT JOIN workspace_items f9 ON f9.id = f8.folder_id, json_each(json_array(f0.id, f1.id, f2.id, f3.id, f4.id, f5.id, f6.id, f7.id, f8.id, f9.id)) j WHERE f0.id = NEW.folder_id AND j.value IS NOT NULL)
    ON CONFLICT (audience_id, item_id) DO UPDATE SET nested = nested + excluded.nested;
  UPDATE shared_workspace_items SET folder_id = NEW.folder_id WHERE item_id = NEW.id;
END;
CREATE TRIGGER workspace_items_shared_rename AFTER UPDATE OF name_key, updated_at ON workspace_items
  WHEN EXISTS (SELECT audience_id FROM shared_workspace_items WHERE item_id = NEW.id)
BEGIN
  UPDATE shared_workspace_items SET name_key = NEW.name_key, updated_at = NEW.updated_at WHERE item_id = NEW.id;
END;
CREATE TRIGGER workspace_items_shared_delete BEFORE DELETE ON workspace_items
  WHEN EXISTS (SELECT audience_id FROM shared_workspace_items WHERE item_id = OLD.id)
BEGIN
  UPDATE shared_workspace_items SET nested = nested - (SELECT m.shared + m.nested FROM shared_workspace_items m WHERE m.audience_id = shared_workspace_items.audience_id AND m.item_id = OLD.id)
    WHERE audience_id IN (SELECT audience_id FROM shared_workspace_items WHERE item_id = OLD.id) AND item_id IN (SELECT j.value FROM workspace_items f0 LEFT JOIN workspace_items f1 ON f1.id = f0.folder_id LEFT JOIN workspace_items f2 ON f2.id = f1.folder_id LEFT JOIN workspace_items f3 ON f3.id = f2.folder_id LEFT JOIN workspace_items f4 ON f4.id = f3.folder_id LEFT JOIN workspace_items f5 ON f5.id = f4.folder_id LEFT JOIN workspace_items f6 ON f6.id = f5.folder_id LEFT JOIN workspace_items f7 ON f7.id = f6.folder_id LEFT JOIN workspace_items f8 ON f8.id = f7.folder_id LEFT JOIN workspace_items f9 ON f9.id = f8.folder_id, json_each(json_array(f0.id, f1.id, f2.id, f3.id, f4.id, f5.id, f6.id, f7.id, f8.id, f9.id)) j WHERE f0.id = OLD.folder_id AND j.value IS NOT NULL);
  DELETE FROM shared_workspace_items
    WHERE audience_id IN (SELECT audience_id FROM shared_workspace_items WHERE item_id = OLD.id) AND item_id IN (SELECT j.value FROM workspace_items f0 LEFT JOIN workspace_items f1 ON f1.id = f0.folder_id LEFT JOIN workspace_items f2 ON f2.id = f1.folder_id LEFT JOIN workspace_items f3 ON f3.id = f2.folder_id LEFT JOIN workspace_items f4 ON f4.id = f3.folder_id LEFT JOIN workspace_items f5 ON f5.id = f4.folder_id LEFT JOIN workspace_items f6 ON f6.id = f5.folder_id LEFT JOIN workspace_items f7 ON f7.id = f6.folder_id LEFT JOIN workspace_items f8 ON f8.id = f7.folder_id LEFT JOIN workspace_items f9 ON f9.id = f8.folder_id, json_each(json_array(f0.id, f1.id, f2.id, f3.id, f4.id, f5.id, f6.id, f7.id, f8.id, f9.id)) j WHERE f0.id = OLD.folder_id AND j.value IS NOT NULL) AND shared = 0 AND nested <= 0;
  DELETE FROM shared_workspace_items WHERE item_id = OLD.id;
END;
