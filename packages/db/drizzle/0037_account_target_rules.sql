CREATE TABLE "proxy_account_target_rules" (
	"proxy_account_id" uuid PRIMARY KEY NOT NULL,
	"mode" text NOT NULL,
	"patterns" text[] NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "proxy_account_target_rules_mode" CHECK ("proxy_account_target_rules"."mode" in ('allow', 'deny'))
);
--> statement-breakpoint
ALTER TABLE "proxy_account_target_rules" ADD CONSTRAINT "proxy_account_target_rules_proxy_account_id_proxy_accounts_id_fk" FOREIGN KEY ("proxy_account_id") REFERENCES "public"."proxy_accounts"("id") ON DELETE cascade ON UPDATE no action;