ALTER TABLE "connection_log" ADD COLUMN "upstream_id" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "upstream_provider_days" ADD COLUMN "our_bytes" bigint;--> statement-breakpoint
CREATE INDEX "connection_log_upstream_idx" ON "connection_log" USING btree ("upstream_id","started_at") WHERE "connection_log"."upstream_id" <> '';--> statement-breakpoint
-- Days fetched before the connection log named the upstream: our figure as it was answered then
-- (the billed usage through that upstream), so those days keep it once the log's days are gone.
UPDATE "upstream_provider_days" d SET "our_bytes" = (
  SELECT coalesce(sum(u."bytes_up" + u."bytes_down"), 0) FROM "usage_daily" u
  WHERE u."upstream_id" = d."upstream_id"::text AND u."day" = (d."day"::text || 'T00:00:00Z')::timestamptz
);
