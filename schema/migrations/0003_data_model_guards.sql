CREATE TABLE `data_model_write_guards` (
	`reason` text NOT NULL,
	CONSTRAINT "unknown_path" CHECK("data_model_write_guards"."reason" <> 'unknown_path'),
	CONSTRAINT "path_taken" CHECK("data_model_write_guards"."reason" <> 'path_taken'),
	CONSTRAINT "too_many_files" CHECK("data_model_write_guards"."reason" <> 'too_many_files'),
	CONSTRAINT "project_too_large" CHECK("data_model_write_guards"."reason" <> 'project_too_large'),
	CONSTRAINT "upload_gone" CHECK("data_model_write_guards"."reason" <> 'upload_gone')
);
