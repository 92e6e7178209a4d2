CREATE TABLE "admin_alerts" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"kind" text NOT NULL,
	"upstream_id" uuid,
	"message" text NOT NULL,
	"dedupe_key" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"resolved_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "job_claims" (
	"job" text NOT NULL,
	"period" text NOT NULL,
	"claimed_by" text NOT NULL,
	"claimed_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "job_claims_job_period_pk" PRIMARY KEY("job","period")
);
--> statement-breakpoint
CREATE TABLE "upstream_accounts" (
	"upstream_id" uuid PRIMARY KEY NOT NULL,
	"provider" text NOT NULL,
	"api_key_enc" text DEFAULT '' NOT NULL,
	"balance_url" text,
	"usage_url" text,
	"low_balance_bytes" bigint DEFAULT 0 NOT NULL,
	"balance_bytes" bigint,
	"checked_at" timestamp with time zone,
	"level" text,
	"status" text DEFAULT 'unchecked' NOT NULL,
	"error" text,
	"last_check_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "upstream_accounts_low_nonnegative" CHECK ("upstream_accounts"."low_balance_bytes" >= 0),
	CONSTRAINT "upstream_accounts_balance_nonnegative" CHECK ("upstream_accounts"."balance_bytes" >= 0)
);
--> statement-breakpoint
CREATE TABLE "upstream_provider_days" (
	"upstream_id" uuid NOT NULL,
	"day" date NOT NULL,
	"provider_bytes" bigint DEFAULT 0 NOT NULL,
	"fetched_at" timestamp with time zone NOT NULL,
	CONSTRAINT "upstream_provider_days_pk" PRIMARY KEY("upstream_id","day"),
	CONSTRAINT "upstream_provider_days_bytes_nonnegative" CHECK ("upstream_provider_days"."provider_bytes" >= 0)
);
--> statement-breakpoint
ALTER TABLE "upstream_accounts" ADD CONSTRAINT "upstream_accounts_upstream_id_upstreams_id_fk" FOREIGN KEY ("upstream_id") REFERENCES "public"."upstreams"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "upstream_provider_days" ADD CONSTRAINT "upstream_provider_days_upstream_id_upstreams_id_fk" FOREIGN KEY ("upstream_id") REFERENCES "public"."upstreams"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "admin_alerts_dedupe_key" ON "admin_alerts" USING btree ("dedupe_key");--> statement-breakpoint
CREATE INDEX "admin_alerts_created_idx" ON "admin_alerts" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "admin_alerts_open_idx" ON "admin_alerts" USING btree ("upstream_id","kind") WHERE "admin_alerts"."resolved_at" IS NULL;--> statement-breakpoint
CREATE INDEX "job_claims_claimed_idx" ON "job_claims" USING btree ("claimed_at");