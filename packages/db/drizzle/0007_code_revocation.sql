-- An admin can withdraw an unused code; lists of codes page newest first.
ALTER TABLE "topup_codes" ADD COLUMN "revoked_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "topup_codes_created_idx" ON "topup_codes" USING btree ("created_at" DESC NULLS LAST,"id" DESC NULLS LAST);