ALTER TABLE "users" ADD COLUMN "locale" text DEFAULT 'en' NOT NULL;--> statement-breakpoint
ALTER TABLE "status_subscriptions" ADD COLUMN "locale" text DEFAULT 'en' NOT NULL;