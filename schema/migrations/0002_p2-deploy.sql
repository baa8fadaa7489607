ALTER TABLE `deployments` ADD `settings` text;--> statement-breakpoint
-- custom:p2-deploy
-- Deleting a deployment releases its stored bytes (issue 12). Its rows go by cascade after the
-- deployment row, when the per-table triggers can no longer find the account: this trigger runs
-- first, while the deployment is still there, and subtracts everything the deployment stores
-- (the backfill formula of 0001 restricted to one deployment).
CREATE TRIGGER deployments_stored_bytes_delete BEFORE DELETE ON deployments BEGIN
  UPDATE accounts SET stored_bytes = max(0, stored_bytes
      - coalesce((SELECT sum(coalesce(length(CAST(w.meta AS BLOB)), 0) + coalesce(length(CAST(w.calculated_fields AS BLOB)), 0) + coalesce(length(CAST(w.dashboard_draft AS BLOB)), 0)) FROM workbooks w WHERE w.deployment_id = old.id), 0)
      - coalesce((SELECT sum(coalesce(length(CAST(r.title AS BLOB)), 0) + coalesce(length(CAST(r.description AS BLOB)), 0) + coalesce(length(CAST(r.spec AS BLOB)), 0) + coalesce(length(CAST(r.sql_query AS BLOB)), 0) + coalesce(length(CAST(r.meta AS BLOB)), 0) + coalesce(length(CAST(r.fill_missing_rows AS BLOB)), 0) + coalesce(length(CAST(r.period_comparisons AS BLOB)), 0) + coalesce(length(CAST(r.preferences AS BLOB)), 0)) FROM reports r JOIN workspace_items i ON i.id = r.item_id WHERE i.deployment_id = old.id), 0)
      - coalesce((SELECT sum(coalesce(length(CAST(dv.config AS BLOB)), 0)) FROM dashboard_versions dv JOIN published_dashboards pd ON pd.id = dv.published_dashboard_id WHERE pd.deployment_id = old.id), 0)
      - coalesce((SELECT sum(coalesce(length(CAST(sc.title AS BLOB)), 0) + coalesce(length(CAST(sc.description AS BLOB)), 0) + coalesce(length(CAST(sc.spec AS BLOB)), 0) + coalesce(length(CAST(sc.sql_query AS BLOB)), 0) + coalesce(length(CAST(sc.meta AS BLOB)), 0) + coalesce(length(CAST(sc.fill_missing_rows AS BLOB)), 0) + coalesce(length(CAST(sc.period_comparisons AS BLOB)), 0) + coalesce(length(CAST(sc.preferences AS BLOB)), 0) + coalesce(length(CAST(sc.name AS BLOB)), 0)) FROM snapshot_contents sc WHERE sc.deployment_id = old.id), 0))
    WHERE id = old.account_id;
END;
