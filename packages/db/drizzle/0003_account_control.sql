CREATE TABLE "ip_allowlist_entries" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"entry" text NOT NULL,
	"network" "cidr" NOT NULL,
	"passwordless" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "pending_logins" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" uuid,
	"admin_id" uuid,
	"attempts" integer DEFAULT 0 NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "recovery_codes" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid,
	"admin_id" uuid,
	"code_hash" text NOT NULL,
	"used_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "proxy_accounts" ADD COLUMN "kind" text DEFAULT 'main' NOT NULL;--> statement-breakpoint
ALTER TABLE "proxy_accounts" ADD COLUMN "name" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "proxy_accounts" ADD COLUMN "cap_bytes" bigint;--> statement-breakpoint
ALTER TABLE "proxy_accounts" ADD COLUMN "used_bytes" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "admin_users" ADD COLUMN "totp_secret_enc" text;--> statement-breakpoint
ALTER TABLE "admin_users" ADD COLUMN "totp_enabled_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "admin_users" ADD COLUMN "totp_last_step" bigint;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "allowlist_passwordless" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "low_balance_bytes" bigint;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "balance_alert_state" text DEFAULT 'armed' NOT NULL;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "totp_secret_enc" text;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "totp_enabled_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "totp_last_step" bigint;--> statement-breakpoint
ALTER TABLE "ip_allowlist_entries" ADD CONSTRAINT "ip_allowlist_entries_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "pending_logins" ADD CONSTRAINT "pending_logins_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "pending_logins" ADD CONSTRAINT "pending_logins_admin_id_admin_users_id_fk" FOREIGN KEY ("admin_id") REFERENCES "public"."admin_users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "recovery_codes" ADD CONSTRAINT "recovery_codes_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "recovery_codes" ADD CONSTRAINT "recovery_codes_admin_id_admin_users_id_fk" FOREIGN KEY ("admin_id") REFERENCES "public"."admin_users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "ip_allowlist_entries_user_idx" ON "ip_allowlist_entries" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "ip_allowlist_entries_network_idx" ON "ip_allowlist_entries" USING gist ("network" inet_ops);--> statement-breakpoint
CREATE INDEX "pending_logins_expires_idx" ON "pending_logins" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "recovery_codes_user_idx" ON "recovery_codes" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "recovery_codes_admin_idx" ON "recovery_codes" USING btree ("admin_id");--> statement-breakpoint
-- Accounts that came in batches are kind 'batch' and named by their batch code; the rest are each
-- user's main account. Usage so far per account comes from the hourly usage rows.
UPDATE "proxy_accounts" AS pa SET "kind" = 'batch', "name" = b."batch_code" FROM "batches" b WHERE b."id" = pa."batch_id";--> statement-breakpoint
UPDATE "proxy_accounts" SET "name" = 'Main' WHERE "kind" = 'main';--> statement-breakpoint
UPDATE "proxy_accounts" AS pa SET "used_bytes" = u."total" FROM (
  SELECT "proxy_account_id", sum("bytes_up" + "bytes_down")::bigint AS "total" FROM "usage_hourly" GROUP BY "proxy_account_id"
) u WHERE u."proxy_account_id" = pa."id";--> statement-breakpoint
CREATE UNIQUE INDEX "proxy_accounts_one_main_key" ON "proxy_accounts" USING btree ("user_id") WHERE "proxy_accounts"."kind" = 'main';