-- Row triggers do not fire on TRUNCATE, so the append-only rule needs a statement-level one too.
CREATE TRIGGER "audit_log_no_truncate" BEFORE TRUNCATE ON "audit_log" FOR EACH STATEMENT EXECUTE FUNCTION "audit_log_append_only"();
