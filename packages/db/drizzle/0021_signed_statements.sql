CREATE TABLE "statements" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"proxy_account_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"day" date NOT NULL,
	"body" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "statements" ADD CONSTRAINT "statements_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "statements_account_day_uq" ON "statements" USING btree ("proxy_account_id","day");--> statement-breakpoint
CREATE INDEX "statements_user_day_idx" ON "statements" USING btree ("user_id","day");--> statement-breakpoint
CREATE INDEX "connection_log_user_target_idx" ON "connection_log" USING btree ("user_id","target" text_pattern_ops,"started_at");