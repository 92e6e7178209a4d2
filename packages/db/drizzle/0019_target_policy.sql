CREATE TABLE "target_policy" (
	"id" integer PRIMARY KEY DEFAULT 1 NOT NULL,
	"rules" text[] NOT NULL,
	"block_raw_ip" boolean DEFAULT false NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "target_policy_single_row" CHECK ("target_policy"."id" = 1)
);
--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "target_policy_exempt" boolean DEFAULT false NOT NULL;