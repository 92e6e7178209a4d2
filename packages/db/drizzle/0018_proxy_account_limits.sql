CREATE TABLE "gateway_connections" (
	"gateway_id" text NOT NULL,
	"proxy_account_id" uuid NOT NULL,
	"open" integer NOT NULL,
	"reported_at" timestamp with time zone NOT NULL,
	CONSTRAINT "gateway_connections_gateway_id_proxy_account_id_pk" PRIMARY KEY("gateway_id","proxy_account_id")
);
--> statement-breakpoint
ALTER TABLE "proxy_accounts" ADD COLUMN "daily_limit_bytes" bigint;--> statement-breakpoint
ALTER TABLE "proxy_accounts" ADD COLUMN "monthly_limit_bytes" bigint;--> statement-breakpoint
ALTER TABLE "proxy_accounts" ADD COLUMN "day_used_bytes" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "proxy_accounts" ADD COLUMN "month_used_bytes" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "proxy_accounts" ADD COLUMN "usage_day" date;--> statement-breakpoint
ALTER TABLE "proxy_accounts" ADD COLUMN "expires_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "proxy_accounts" ADD COLUMN "max_connections" integer;--> statement-breakpoint
ALTER TABLE "gateway_connections" ADD CONSTRAINT "gateway_connections_proxy_account_id_proxy_accounts_id_fk" FOREIGN KEY ("proxy_account_id") REFERENCES "public"."proxy_accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "gateway_connections_account_idx" ON "gateway_connections" USING btree ("proxy_account_id");