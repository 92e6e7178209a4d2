CREATE TABLE "pricing_settings" (
	"id" text PRIMARY KEY NOT NULL,
	"price_per_gb_cents" integer NOT NULL,
	"min_order_cents" integer NOT NULL,
	"tiers" jsonb NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "price_per_gb_cents" integer;