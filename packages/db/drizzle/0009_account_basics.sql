-- Account deletion keeps an anonymised row (the ledger adds up); sign-ins are counted for "Welcome back".
ALTER TABLE "users" ADD COLUMN "deleted_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "sign_in_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Accounts from before the count existed have signed in already if their email is verified.
UPDATE "users" SET "sign_in_count" = 1 WHERE "email_verified_at" IS NOT NULL;
