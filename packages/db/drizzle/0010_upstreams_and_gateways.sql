CREATE TABLE "gateways" (
	"id" text PRIMARY KEY NOT NULL,
	"version" text NOT NULL,
	"started_at" timestamp with time zone NOT NULL,
	"last_seen_at" timestamp with time zone NOT NULL,
	"open_tunnels" integer DEFAULT 0 NOT NULL,
	"bytes_per_sec_up" bigint DEFAULT 0 NOT NULL,
	"bytes_per_sec_down" bigint DEFAULT 0 NOT NULL,
	"leased_bytes" bigint DEFAULT 0 NOT NULL,
	"upstream_errors" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "upstreams" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"protocol" text NOT NULL,
	"host" text NOT NULL,
	"port" integer NOT NULL,
	"username_template" text DEFAULT '' NOT NULL,
	"password_enc" text NOT NULL,
	"countries" text[],
	"weight" integer DEFAULT 1 NOT NULL,
	"cost_per_gb_cents" integer DEFAULT 0 NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "upstreams_port_range" CHECK ("upstreams"."port" between 1 and 65535),
	CONSTRAINT "upstreams_weight_positive" CHECK ("upstreams"."weight" > 0),
	CONSTRAINT "upstreams_cost_nonnegative" CHECK ("upstreams"."cost_per_gb_cents" >= 0)
);
--> statement-breakpoint
ALTER TABLE "usage_daily" ADD COLUMN "upstream_id" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_hourly" ADD COLUMN "upstream_id" text DEFAULT '' NOT NULL;--> statement-breakpoint
CREATE INDEX "usage_daily_upstream_idx" ON "usage_daily" USING btree ("upstream_id","day");--> statement-breakpoint
ALTER TABLE "usage_daily" DROP CONSTRAINT "usage_daily_pk";
--> statement-breakpoint
ALTER TABLE "usage_daily" ADD CONSTRAINT "usage_daily_pk" PRIMARY KEY("proxy_account_id","day","usage_type","country","state","city","protocol","upstream_id");--> statement-breakpoint
ALTER TABLE "usage_hourly" DROP CONSTRAINT "usage_hourly_pk";
--> statement-breakpoint
ALTER TABLE "usage_hourly" ADD CONSTRAINT "usage_hourly_pk" PRIMARY KEY("proxy_account_id","hour","usage_type","country","state","city","protocol","upstream_id");