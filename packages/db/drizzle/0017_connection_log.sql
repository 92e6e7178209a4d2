-- Edited by hand: partitioned by UTC day of started_at (drizzle-kit does not write PARTITION BY).
-- Partitions are created as rows arrive and dropped whole after CONNECTION_LOG_DAYS (services/connection-log.ts).
CREATE TABLE "connection_log" (
	"id" uuid NOT NULL,
	"started_at" timestamp with time zone NOT NULL,
	"ended_at" timestamp with time zone NOT NULL,
	"user_id" uuid NOT NULL,
	"proxy_account_id" uuid NOT NULL,
	"proxy_user_id" text NOT NULL,
	"protocol" text NOT NULL,
	"target" text NOT NULL,
	"country" text DEFAULT '' NOT NULL,
	"state" text DEFAULT '' NOT NULL,
	"city" text DEFAULT '' NOT NULL,
	"session" text NOT NULL,
	"bytes_up" bigint DEFAULT 0 NOT NULL,
	"bytes_down" bigint DEFAULT 0 NOT NULL,
	"billed_bytes" bigint DEFAULT 0 NOT NULL,
	"outcome" text NOT NULL,
	"reason" text DEFAULT '' NOT NULL,
	"gateway_id" text NOT NULL,
	CONSTRAINT "connection_log_pk" PRIMARY KEY("id","started_at")
) PARTITION BY RANGE ("started_at");
--> statement-breakpoint
CREATE INDEX "connection_log_user_idx" ON "connection_log" USING btree ("user_id","started_at","id");