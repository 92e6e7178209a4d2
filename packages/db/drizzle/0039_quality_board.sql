CREATE TABLE "quality_incidents" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"country" text NOT NULL,
	"opened_at" timestamp with time zone NOT NULL,
	"closed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "quality_probes" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"country" text NOT NULL,
	"upstream_id" uuid,
	"at" timestamp with time zone NOT NULL,
	"ok" boolean NOT NULL,
	"connect_ms" integer,
	"exit_country" text
);
--> statement-breakpoint
CREATE TABLE "status_notices" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"subscription_id" uuid NOT NULL,
	"incident_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"claimed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "status_subscription_tokens" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"subscription_id" uuid NOT NULL,
	"purpose" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "status_subscriptions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"email" text,
	"telegram_chat_id" bigint,
	"confirmed_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "status_subscriptions_one_address" CHECK (("status_subscriptions"."email" IS NULL) <> ("status_subscriptions"."telegram_chat_id" IS NULL))
);
--> statement-breakpoint
ALTER TABLE "status_notices" ADD CONSTRAINT "status_notices_subscription_id_status_subscriptions_id_fk" FOREIGN KEY ("subscription_id") REFERENCES "public"."status_subscriptions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "status_notices" ADD CONSTRAINT "status_notices_incident_id_quality_incidents_id_fk" FOREIGN KEY ("incident_id") REFERENCES "public"."quality_incidents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "status_subscription_tokens" ADD CONSTRAINT "status_subscription_tokens_subscription_id_status_subscriptions_id_fk" FOREIGN KEY ("subscription_id") REFERENCES "public"."status_subscriptions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "quality_incidents_one_open_key" ON "quality_incidents" USING btree ("country") WHERE "quality_incidents"."closed_at" IS NULL;--> statement-breakpoint
CREATE INDEX "quality_incidents_opened_idx" ON "quality_incidents" USING btree ("opened_at");--> statement-breakpoint
CREATE INDEX "quality_probes_country_at_idx" ON "quality_probes" USING btree ("country","at");--> statement-breakpoint
CREATE INDEX "quality_probes_at_idx" ON "quality_probes" USING btree ("at");--> statement-breakpoint
CREATE UNIQUE INDEX "status_notices_once_key" ON "status_notices" USING btree ("subscription_id","incident_id","kind");--> statement-breakpoint
CREATE INDEX "status_notices_pending_idx" ON "status_notices" USING btree ("created_at") WHERE "status_notices"."claimed_at" IS NULL;--> statement-breakpoint
CREATE INDEX "status_subscription_tokens_sub_idx" ON "status_subscription_tokens" USING btree ("subscription_id");--> statement-breakpoint
CREATE UNIQUE INDEX "status_subscriptions_email_key" ON "status_subscriptions" USING btree ("email");--> statement-breakpoint
CREATE UNIQUE INDEX "status_subscriptions_chat_key" ON "status_subscriptions" USING btree ("telegram_chat_id");