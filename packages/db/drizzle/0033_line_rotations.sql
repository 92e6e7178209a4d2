CREATE TABLE "line_rotations" (
	"proxy_account_id" uuid NOT NULL,
	"token" text NOT NULL,
	"count" integer DEFAULT 0 NOT NULL,
	"rotated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "line_rotations_proxy_account_id_token_pk" PRIMARY KEY("proxy_account_id","token")
);
--> statement-breakpoint
ALTER TABLE "line_rotations" ADD CONSTRAINT "line_rotations_proxy_account_id_proxy_accounts_id_fk" FOREIGN KEY ("proxy_account_id") REFERENCES "public"."proxy_accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "line_rotations_recent_idx" ON "line_rotations" USING btree ("proxy_account_id","rotated_at");