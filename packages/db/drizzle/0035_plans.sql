CREATE TABLE "plans" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"gb_per_period" integer NOT NULL,
	"price_cents" integer NOT NULL,
	"period" text NOT NULL,
	"rollover" boolean DEFAULT false NOT NULL,
	"active" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "plans_gb_positive" CHECK ("plans"."gb_per_period" > 0),
	CONSTRAINT "plans_price_positive" CHECK ("plans"."price_cents" > 0),
	CONSTRAINT "plans_period_known" CHECK ("plans"."period" in ('month', 'week'))
);
