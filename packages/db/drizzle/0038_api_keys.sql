CREATE TABLE "api_keys" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"name" text NOT NULL,
	"scopes" text[] NOT NULL,
	"key_hash" text NOT NULL,
	"prefix" text DEFAULT '' NOT NULL,
	"is_default" boolean DEFAULT false NOT NULL,
	"expires_at" timestamp with time zone,
	"allowed_cidrs" text[] DEFAULT '{}'::text[] NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_used_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "api_keys_key_hash_key" ON "api_keys" USING btree ("key_hash");--> statement-breakpoint
CREATE INDEX "api_keys_user_idx" ON "api_keys" USING btree ("user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "api_keys_one_default_key" ON "api_keys" USING btree ("user_id") WHERE "api_keys"."is_default";--> statement-breakpoint
-- Today's single key of every account becomes its "Default" key, with every scope (same hash: it keeps working).
INSERT INTO "api_keys" ("user_id", "name", "scopes", "key_hash", "is_default", "created_at")
SELECT "id", 'Default', ARRAY['usage:read', 'accounts:read', 'accounts:write', 'lines:generate', 'billing:write']::text[], "api_key_hash", true, "created_at"
FROM "users" WHERE "deleted_at" IS NULL;
