-- Usage rows also say where the traffic went (country, state, city from the proxy username) and how
-- it came in (http, connect, socks5); existing rows keep their bytes under '' (unknown). A daily
-- copy is kept beside the hourly rows for long ranges.
ALTER TABLE "usage_hourly" ADD COLUMN "country" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_hourly" ADD COLUMN "state" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_hourly" ADD COLUMN "city" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_hourly" ADD COLUMN "protocol" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_hourly" DROP CONSTRAINT "usage_hourly_proxy_account_id_hour_usage_type_pk";--> statement-breakpoint
ALTER TABLE "usage_hourly" ADD CONSTRAINT "usage_hourly_pk" PRIMARY KEY("proxy_account_id","hour","usage_type","country","state","city","protocol");--> statement-breakpoint
CREATE TABLE "usage_daily" (
	"proxy_account_id" uuid NOT NULL,
	"day" timestamp with time zone NOT NULL,
	"usage_type" text NOT NULL,
	"country" text DEFAULT '' NOT NULL,
	"state" text DEFAULT '' NOT NULL,
	"city" text DEFAULT '' NOT NULL,
	"protocol" text DEFAULT '' NOT NULL,
	"bytes_up" bigint DEFAULT 0 NOT NULL,
	"bytes_down" bigint DEFAULT 0 NOT NULL,
	"sessions" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "usage_daily_pk" PRIMARY KEY("proxy_account_id","day","usage_type","country","state","city","protocol")
);--> statement-breakpoint
ALTER TABLE "usage_daily" ADD CONSTRAINT "usage_daily_proxy_account_id_proxy_accounts_id_fk" FOREIGN KEY ("proxy_account_id") REFERENCES "public"."proxy_accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
INSERT INTO "usage_daily" ("proxy_account_id", "day", "usage_type", "country", "state", "city", "protocol", "bytes_up", "bytes_down", "sessions", "created_at")
  SELECT "proxy_account_id", date_trunc('day', "hour", 'UTC'), "usage_type", "country", "state", "city", "protocol",
         sum("bytes_up")::bigint, sum("bytes_down")::bigint, sum("sessions")::int, max("created_at")
  FROM "usage_hourly"
  GROUP BY 1, 2, 3, 4, 5, 6, 7;
